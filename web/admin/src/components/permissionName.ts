// The name of a permission in the console's language. The catalogue's permissions (is_system:
// one per slug a route declares) are named by the server in English; in Chinese the console names
// them by slug. Permissions an administrator created keep the name they were given.

const ZH: Record<string, string> = {
  'admin.list': '查看管理员', 'admin.create': '新增管理员', 'admin.update': '编辑管理员', 'admin.delete': '删除管理员',
  'admin.reset_password': '重置管理员密码', 'admin.export': '导出管理员',
  'role.list': '查看角色', 'role.create': '新增角色', 'role.update': '编辑角色', 'role.delete': '删除角色',
  'menu.list': '查看菜单', 'menu.create': '新增菜单', 'menu.update': '编辑菜单', 'menu.delete': '删除菜单',
  'permission.list': '查看权限', 'permission.create': '新增权限', 'permission.update': '编辑权限', 'permission.delete': '删除权限',
  'department.list': '查看部门', 'department.create': '新增部门', 'department.update': '编辑部门', 'department.delete': '删除部门',
  'dictionary.list': '查看字典', 'dictionary.create': '新增字典', 'dictionary.update': '编辑字典', 'dictionary.delete': '删除字典',
  'blacklist.list': '查看 IP 黑名单', 'blacklist.create': '新增 IP 黑名单', 'blacklist.update': '编辑 IP 黑名单', 'blacklist.delete': '删除 IP 黑名单',
  'order.list': '查看订单列表', 'order.view': '查看订单详情', 'order.create': '新建订单', 'order.update': '修改订单状态', 'order.delete': '删除订单',
  'order.import': '导入订单', 'order.export': '导出订单',
  'payment-method.list': '查看支付方式', 'payment-method.view': '查看支付方式详情', 'payment-method.create': '新增支付方式',
  'payment-method.update': '编辑支付方式', 'payment-method.delete': '删除支付方式',
  'payment.list': '查看支付记录', 'payment.view': '查看支付记录详情',
  'log.operation': '查看操作日志', 'log.login': '查看登录日志', 'log.system': '查看系统日志',
  'dashboard.view': '查看仪表盘', 'monitor.system': '查看服务器监控', 'online.list': '查看在线管理员', 'online.kick': '强制下线',
  'attachment.upload': '上传文件', 'attachment.view': '查看文件', 'attachment.delete': '删除文件', 'notification.send': '发送通知',
  'admin.unbind_2fa': '解绑管理员的身份验证器',
};

export function permissionName(p: { slug: string; name: string; is_system: boolean }, language: string): string {
  return language === 'zh-CN' && p.is_system ? ZH[p.slug] ?? p.name : p.name;
}
