// The zh-CN message catalogue (each service's part in zh-CN.<service>.ts): the same keys as
// en-US.ts (the type requires every one), the same parameters, and no untranslated English
// (test/platform/messages.test.ts).
import type { MessageKey } from './en-US.ts';
import { zhCNAdmin } from './zh-CN.admin.ts';
import { zhCNTimeclock } from './zh-CN.timeclock.ts';

export const zhCN: Record<MessageKey, string> = {
  // Shared forms
  'common.withDetail': '{message}：{detail}',
  'common.listSeparator': '、',
  'common.sentenceSeparator': '；',
  'common.verbatim': '{text}',
  // Rendered as the country's name in the reader's language (countryName in platform/i18n.ts), not from this text.
  'common.country': '{code}',

  // Requests the framework refuses before a route runs
  'request.route': '{method} {path}',
  'request.invalidJson': '请求体不是有效的 JSON',
  'request.jsonTooDeep': '请求体中对象和数组的嵌套超过 {limit} 层',
  'request.emptyJson': '请求体为空，但内容类型是 application/json',
  'request.contentLength': 'Content-Length 请求头与请求体长度不符',
  'request.mediaType': '不接受内容类型 {type}',
  'request.invalid': '请求格式错误',

  // Dependencies out of service (503)
  'unavailable.database': '数据库无法连接',
  'unavailable.redis': 'Redis 无法连接',
  'unavailable.storage': '文件存储无法连接',
  'unavailable.statementTimeout': '数据库语句执行过久，已被取消',

  // Validation against a route's schema; {field} is the field's path (body.items.0.sku)
  'validation.required': '{field} 为必填项',
  'validation.additionalProperties': '{field} 不是可接受的字段',
  'validation.oneOf': '{field} 必须是以下之一：{values}',
  'validation.const': '{field} 必须为 {value}',
  'validation.type': '{field} 必须是{type}',
  'validation.type.string': '字符串',
  'validation.type.integer': '整数',
  'validation.type.number': '有限数值',
  'validation.type.boolean': '布尔值',
  'validation.type.object': '对象',
  'validation.type.array': '数组',
  'validation.type.null': '空值（null）',
  'validation.type.other': '其他形式的值',
  'validation.compare': '{field} 必须 {comparison} {limit}',
  'validation.minLength': '{field} 不能少于 {limit} 个字符',
  'validation.maxLength': '{field} 不能多于 {limit} 个字符',
  'validation.minItems': '{field} 不能少于 {limit} 项',
  'validation.maxItems': '{field} 不能多于 {limit} 项',
  'validation.minProperties': '{field} 不能少于 {limit} 个属性',
  'validation.maxProperties': '{field} 不能多于 {limit} 个属性',
  'validation.uniqueItems': '{field} 不能有重复项（第 {i} 项与第 {j} 项相同）',
  'validation.multipleOf': '{field} 必须是 {value} 的倍数',
  'validation.pattern': '{field} 必须匹配格式 "{pattern}"',
  'validation.format': '{field} 必须符合 "{format}" 格式',
  'validation.finite': '{field} 必须是有限数值',
  'validation.illFormed': '{field} 不能包含 NUL 字符或不成对的 UTF-16 代理项',
  'validation.invalid': '{field} 的值无效',

  // Nouns that messages name things by
  'noun.menu': '菜单',
  'noun.department': '部门',
  'noun.role': '角色',
  'noun.permission': '权限',

  // Platform checks shared by both services
  'platform.schemas.startTimeNotValid': 'start_time 不是有效的日期时间',
  'platform.schemas.endTimeNotValid': 'end_time 不是有效的日期时间',
  'platform.schemas.startTimeMustNot': 'start_time 不能晚于 end_time',
  'platform.schemas.timeRangeMustNot': '时间范围不能超过 {maxMonths} 个月',
  'platform.tree.cannotOwnParent': '{noun} {id} 不能是自己的上级',
  'platform.tree.parentIdDescendantMoving': '上级 parent_id {parentId} 是{noun} {id} 的下级：移到那里会形成循环',
  'platform.password.minLength': '密码长度至少为 {min} 个字符',
  'platform.password.charClasses': '密码须至少包含以下 4 类字符中的 {min} 类：小写字母、大写字母、数字、其他字符（符号、空格）',
  'platform.password.username': '密码不能包含用户名',
  'platform.password.common': '该密码属于最常用的 10,000 个密码之一：请换一个不易被猜到的密码',
  'platform.password.history': '新密码不能与该账号最近 {count} 次使用的密码相同',
  'platform.password.sameAsCurrent': '新密码不能与当前密码相同',

  // Each service's own messages
  ...zhCNAdmin,
  ...zhCNTimeclock,
};
