export const strings = {
  'en-US': {
    admin: 'Administrator', adminId: 'Administrator ID', username: 'Username', module: 'Module', action: 'Action', slug: 'Permission slug', method: 'Method',
    route: 'Route', path: 'Path', ip: 'IP', location: 'Location', userAgent: 'Browser', params: 'Parameters', statusCode: 'HTTP status', duration: 'Duration',
    durationMs: '{{ms}} ms', traceId: 'Trace ID', time: 'Time', level: 'Level', message: 'Message', context: 'Context', result: 'Result',
    reason: 'Reason', success: 'Success', failure: 'Failure', detail: 'Details', exportCsv: 'Export CSV', exportXlsx: 'Export Excel', dates: 'Dates', withTime: 'Time of day',
    detailOf: 'Log entry #{{id}}', traceSystem: 'System log rows of this trace', traceOperation: 'Operation log rows of this trace',
    traceFilter: 'Showing the operation log rows of trace {{id}}', clearTrace: 'Show all rows',
    noTrace: 'This entry was not written during a request (no trace ID).',
    changes: 'Changes', noChange: 'No field changed.', before: 'Before', after: 'After', empty: '(empty)',
    changeOp: { create: 'Created {{entity}} {{id}}', update: 'Changed {{entity}} {{id}}', delete: 'Deleted {{entity}} {{id}}' },
    entities: {
      admin: 'administrator', role: 'role', permission: 'permission', menu: 'menu', department: 'department', dictionary: 'dictionary entry', blacklist: 'blacklist rule',
      order: 'order', payment_method: 'payment method', password_policy: 'password policy', session: 'session', attachment: 'attachment', notification: 'notification',
    },
    reasons: {
      success: 'Signed in', recovery_code: 'Signed in with a recovery code', captcha: 'Wrong captcha', locked: 'Account locked', unknown_user: 'Unknown user', bad_password: 'Wrong password',
      disabled: 'Account disabled', authenticator_required: 'Authenticator code asked', authenticator_wrong: 'Wrong authenticator code',
    },
  },
  'zh-CN': {
    admin: '管理员', adminId: '管理员 ID', username: '用户名', module: '模块', action: '操作', slug: '权限标识', method: '方法',
    route: '路由', path: '路径', ip: 'IP', location: '登录地点', userAgent: '浏览器', params: '请求参数', statusCode: 'HTTP 状态', duration: '耗时',
    durationMs: '{{ms}} 毫秒', traceId: '追踪 ID', time: '时间', level: '级别', message: '消息', context: '上下文', result: '结果',
    reason: '原因', success: '成功', failure: '失败', detail: '详情', exportCsv: '导出 CSV', exportXlsx: '导出 Excel', dates: '日期', withTime: '精确到时分秒',
    detailOf: '日志 #{{id}}', traceSystem: '该追踪的系统日志', traceOperation: '该追踪的操作日志',
    traceFilter: '正在显示追踪 {{id}} 的操作日志', clearTrace: '显示全部记录',
    noTrace: '该条目不是在请求中写入的（没有追踪 ID）。',
    changes: '变更内容', noChange: '没有字段发生变化。', before: '修改前', after: '修改后', empty: '（空）',
    changeOp: { create: '新建{{entity}} {{id}}', update: '修改{{entity}} {{id}}', delete: '删除{{entity}} {{id}}' },
    entities: {
      admin: '管理员', role: '角色', permission: '权限', menu: '菜单', department: '部门', dictionary: '字典项', blacklist: '黑名单规则',
      order: '订单', payment_method: '支付方式', password_policy: '密码策略', session: '会话', attachment: '附件', notification: '通知',
    },
    reasons: {
      success: '登录成功', recovery_code: '使用恢复码登录', captcha: '验证码错误', locked: '账号已锁定', unknown_user: '用户不存在', bad_password: '密码错误',
      disabled: '账号已禁用', authenticator_required: '需要验证器验证码', authenticator_wrong: '验证器验证码错误',
    },
  },
};
