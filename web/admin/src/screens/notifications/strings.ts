export const strings = {
  'en-US': {
    bell: 'Notifications, {{count}} unread', latest: 'Latest notifications', none: 'No notifications',
    read: 'Mark read', readAll: 'Mark all read', viewAll: 'View all', unread: 'Unread', readState: 'Read',
    all: 'All', live: 'Live', offline: 'Reconnecting… (checking every 30 s)', title: 'Title', content: 'Content', kind: 'Kind',
    sentAt: 'Sent', readAt: 'Read at', state: 'State', send: 'Send a notification', sendTitle: 'Send a notification',
    audience: 'Recipients', toAdmins: 'Chosen administrators', sendOk: 'Send', toRole: 'A role', toAll: 'Everyone', admins: 'Administrators', role: 'Role',
    sent: 'Sent to {{count}} administrators', titleRule: '1 to 200 characters, not blank', contentRule: '1 to 5000 characters, not blank',
    adminsRule: 'Choose at least one administrator', roleRule: 'Choose a role', markedAll: '{{count}} marked read',
    download: 'Download', availableUntil: 'available until {{time}}',
    kinds: { message: 'Message', export: 'Export', import: 'Import', session: 'Session', security: 'Security', system: 'System' },
  },
  'zh-CN': {
    bell: '通知，{{count}} 条未读', latest: '最新通知', none: '暂无通知',
    read: '标为已读', readAll: '全部标为已读', viewAll: '查看全部', unread: '未读', readState: '已读',
    all: '全部', live: '实时', offline: '正在重新连接……（每 30 秒检查一次）', title: '标题', content: '内容', kind: '类别',
    sentAt: '发送时间', readAt: '阅读时间', state: '状态', send: '发送通知', sendTitle: '发送通知',
    audience: '接收人', toAdmins: '指定管理员', sendOk: '发送', toRole: '指定角色', toAll: '所有人', admins: '管理员', role: '角色',
    sent: '已发送给 {{count}} 位管理员', titleRule: '1 至 200 个字符，不能全为空白', contentRule: '1 至 5000 个字符，不能全为空白',
    adminsRule: '请至少选择一位管理员', roleRule: '请选择角色', markedAll: '已将 {{count}} 条标为已读',
    download: '下载', availableUntil: '有效期至 {{time}}',
    kinds: { message: '消息', export: '导出', import: '导入', session: '会话', security: '安全', system: '系统' },
  },
};
