// 各页面共用的文案。页面自己的文案放在各自目录中（见 addStrings）。
import type en from './en-US.ts';

const zh: typeof en = {
  app: { title: '后台管理' },
  action: {
    search: '查询', reset: '重置', create: '新建', edit: '编辑', delete: '删除', save: '保存', cancel: '取消',
    confirm: '确定', refresh: '刷新', export: '导出', import: '导入', download: '下载', view: '查看',
    enable: '启用', disable: '停用', back: '返回', close: '关闭', retry: '重试', batchDelete: '删除所选',
    addChild: '新增下级', expandAll: '全部展开', collapseAll: '全部折叠',
    signOut: '退出登录', profile: '个人中心', reload: '刷新',
  },
  tree: { root: '无（顶级）' },
  state: {
    loading: '加载中…', empty: '暂无数据', emptyFiltered: '没有符合条件的数据',
    error: '加载失败', saved: '已保存', deleted: '已删除', done: '已完成',
    confirmDelete: '确定删除 {{name}}？此操作不可撤销。', confirmDeleteMany: '确定删除所选的 {{count}} 项？此操作不可撤销。', selected: '已选 {{count}} 项',
    adminGone: '已删除的管理员 #{{id}}',
    capped: '超过 {{total}} 条符合条件：缩小筛选范围可精确计数',
  },
  field: {
    id: 'ID', status: '状态', createdAt: '创建时间', updatedAt: '更新时间', actions: '操作', sort: '排序', name: '名称',
    description: '描述', timeRange: '时间范围', enabled: '启用', disabled: '停用',
  },
  error: {
    screen: '此页面加载失败，请检查网络后刷新页面。',
    network: '无法连接服务器，请检查网络后重试。',
    traceId: '追踪 ID：{{id}}',
    unavailable: '服务暂时不可用，请稍后再试。',
    forbidden: '您没有执行此操作的权限。',
    notFound: '页面不存在。',
  },
  session: {
    expired: '登录已过期，请重新登录。',
    revoked: '您的会话已结束（在别处退出、被强制下线或密码已修改），请重新登录。',
    invalid: '请登录。',
    'signed-out': '您已退出登录。',
  },
  signIn: {
    title: '登录后台管理', username: '用户名', password: '密码', captcha: '图中字符',
    captchaHint: '点击图片换一张', submit: '登录', authenticator: '动态验证码',
    authenticatorHint: '该账号已开启两步验证：请输入身份验证器中的 6 位数字。',
    back: '使用其他账号', required: '必填', codeFormat: '6 位数字',
    recovery: '恢复码', recoveryHint: '请输入开启身份验证器时保存的一个恢复码。每个恢复码只能使用一次。',
    recoveryFormat: '10 位字母和数字，格式为 xxxxx-xxxxx', useRecovery: '身份验证器不在身边？使用恢复码', useAuthenticator: '使用动态验证码',
  },
  bindStep: {
    title: '开启两步验证',
    required: '你的账号所属角色要求使用身份验证器应用。',
    how: '请先绑定（Google Authenticator、Microsoft Authenticator 等）再继续：完成设置，输入应用显示的验证码，然后保存恢复码。',
    bound: '已开启身份验证器', continue: '进入后台管理',
  },
  passwordStep: {
    title: '设置你自己的密码',
    required: '你的密码由他人设置，或已过期。',
    how: '请设置一个新密码后继续：只有你知道它。',
  },
  layout: {
    language: '语言', theme: '主题', light: '浅色', dark: '深色', notifications: '通知', home: '首页', menu: '菜单',
  },
  menu: {
    dashboard: '仪表盘', system: '系统管理', admin: '管理员', role: '角色', menu: '菜单', permission: '权限',
    department: '部门', dictionary: '字典', blacklist: 'IP 黑名单', trade: '交易', order: '订单',
    'payment-method': '支付方式', payment: '支付记录', log: '日志', 'log-operation': '操作日志',
    'log-login': '登录日志', 'log-system': '系统日志', monitor: '监控', online: '在线管理员',
    'monitor-system': '服务器', attachment: '文件', notification: '通知', profile: '个人中心', 'password-policy': '密码策略',
  },
  pending: { title: '暂未提供', text: '控制台暂未提供此页面。' },
  dataScope: {
    title: '数据范围',
    all: '全部数据', department_and_below: '本部门及以下部门', department: '仅本部门',
    departmentAndBelowShort: '本部门及以下',
    custom: '指定部门', self: '仅本人数据',
    more: '另有 {{count}} 个：{{list}}', departments: '{{count}} 个部门', departments_one: '1 个部门',
  },
};

export default zh;
