-- Translations of the text that administrators edit in several languages: `<field>_i18n`
-- holds the values of the languages other than the default (en-US) one, which stays in the
-- field's own column (src/platform/translations.ts). The seeded rows get their Chinese values,
-- in existing databases too, unless an administrator has renamed them meanwhile.

ALTER TABLE admin.menus ADD COLUMN title_i18n jsonb NOT NULL DEFAULT '{}';
ALTER TABLE admin.roles ADD COLUMN name_i18n jsonb NOT NULL DEFAULT '{}',
                        ADD COLUMN description_i18n jsonb NOT NULL DEFAULT '{}';
ALTER TABLE admin.departments ADD COLUMN name_i18n jsonb NOT NULL DEFAULT '{}';
ALTER TABLE admin.dictionaries ADD COLUMN name_i18n jsonb NOT NULL DEFAULT '{}',
                               ADD COLUMN description_i18n jsonb NOT NULL DEFAULT '{}';

UPDATE admin.menus m SET title_i18n = jsonb_build_object('zh-CN', v.zh)
FROM (VALUES
  ('dashboard', 'Dashboard', '仪表盘'),
  ('system', 'System', '系统管理'),
  ('admin', 'Administrators', '管理员'),
  ('role', 'Roles', '角色'),
  ('menu', 'Menus', '菜单'),
  ('permission', 'Permissions', '权限'),
  ('department', 'Departments', '部门'),
  ('dictionary', 'Dictionaries', '字典'),
  ('blacklist', 'IP blacklist', 'IP 黑名单'),
  ('trade', 'Trade', '交易'),
  ('order', 'Orders', '订单'),
  ('payment-method', 'Payment methods', '支付方式'),
  ('payment', 'Payments', '支付记录'),
  ('log', 'Logs', '日志'),
  ('log-operation', 'Operation logs', '操作日志'),
  ('log-login', 'Login logs', '登录日志'),
  ('log-system', 'System logs', '系统日志'),
  ('monitor', 'Monitoring', '监控'),
  ('online', 'Online administrators', '在线管理员'),
  ('monitor-system', 'Server', '服务器'),
  ('attachment', 'Files', '文件'),
  ('notification', 'Notifications', '通知')
) AS v (slug, en, zh)
WHERE m.slug = v.slug AND m.title = v.en AND NOT m.title_i18n ? 'zh-CN';

UPDATE admin.roles SET name_i18n = '{"zh-CN": "超级管理员"}'
WHERE slug = 'super_admin' AND name = 'Super Administrator' AND NOT name_i18n ? 'zh-CN';
UPDATE admin.roles SET description_i18n = '{"zh-CN": "通过所有权限检查"}'
WHERE slug = 'super_admin' AND description = 'Passes every permission check' AND NOT description_i18n ? 'zh-CN';

UPDATE admin.departments SET name_i18n = '{"zh-CN": "总部"}'
WHERE id = 1 AND parent_id = 0 AND name = 'Head Office' AND NOT name_i18n ? 'zh-CN';

-- Dictionary types (parent_id 0) and their items, by their codes.
UPDATE admin.dictionaries d
SET name_i18n = CASE WHEN d.name = v.en THEN jsonb_build_object('zh-CN', v.zh) ELSE d.name_i18n END,
    description_i18n = CASE WHEN v.en_desc IS NOT NULL AND d.description = v.en_desc THEN jsonb_build_object('zh-CN', v.zh_desc) ELSE d.description_i18n END
FROM (VALUES
  ('order_status',   'Order status',   '订单状态', 'Status of an order',                   '订单的状态'),
  ('payment_status', 'Payment status', '支付状态', 'Status of a payment record',           '支付记录的状态'),
  ('admin_status',   'Admin status',   '管理员状态', 'Whether an administrator may sign in', '管理员能否登录'),
  ('menu_type',      'Menu type',      '菜单类型', 'Kind of a menu node',                  '菜单节点的种类')
) AS v (code, en, zh, en_desc, zh_desc)
WHERE d.parent_id = 0 AND d.code = v.code AND d.name_i18n = '{}';

UPDATE admin.dictionaries d SET name_i18n = jsonb_build_object('zh-CN', v.zh)
FROM (VALUES
  ('order_status',   'pending',   'Pending',   '待支付'),
  ('order_status',   'paid',      'Paid',      '已支付'),
  ('order_status',   'cancelled', 'Cancelled', '已取消'),
  ('payment_status', 'pending',   'Pending',   '待支付'),
  ('payment_status', 'paid',      'Paid',      '已支付'),
  ('payment_status', 'failed',    'Failed',    '失败'),
  ('payment_status', 'cancelled', 'Cancelled', '已取消'),
  ('admin_status',   'enabled',   'Enabled',   '启用'),
  ('admin_status',   'disabled',  'Disabled',  '禁用'),
  ('menu_type',      'directory', 'Directory', '目录'),
  ('menu_type',      'menu',      'Menu',      '菜单'),
  ('menu_type',      'button',    'Button',    '按钮')
) AS v (type_code, code, en, zh)
JOIN admin.dictionaries t ON t.parent_id = 0 AND t.code = v.type_code
WHERE d.parent_id = t.id AND d.code = v.code AND d.name = v.en AND d.name_i18n = '{}';
