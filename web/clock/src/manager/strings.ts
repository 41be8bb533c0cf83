// The manager console's strings (namespace `manager`), in en-US and zh-CN, and the kit's words.
import type { KitStrings } from '../../../shared/kitStrings.ts';
import enCommon from '../i18n/en-US.ts';
import zhCommon from '../i18n/zh-CN.ts';

const en = {
  nav: { board: 'Live board', timesheets: 'Timesheets', exceptions: 'Exceptions', rules: 'Work rules', workers: 'Workers', sites: 'Sites', qr: 'QR codes', alerts: 'Alerts', blacklist: 'App blacklist', webhooks: 'Webhooks', open: 'Menu', waiting_one: '{{count}} to decide or review', waiting_other: '{{count}} to decide or review' },
  state: { error: 'Could not load this', done: 'Done', saved: 'Saved', deleted: 'Deleted', empty: 'Nothing here yet', noMatch: 'Nothing matches these filters', loading: 'Loading…' },
  error: { limited: 'Too many requests. Try again in {{seconds}} s.' },
  conflict: { username: 'This username is taken.', name: 'This name is already used.' },
  code: {
    VALIDATION_ERROR: '', CONFLICT: '', NOT_FOUND: 'It no longer exists (someone may have deleted it). Refresh the list.',
    FORBIDDEN: 'Only managers may do this.', GEOFENCE_NOT_CONFIGURED: 'This site has no fence yet.',
  },
  action: {
    search: 'Search', reset: 'Clear', create: 'Create', edit: 'Edit', save: 'Save', cancel: 'Cancel', delete: 'Delete', confirmDelete: 'Delete this for good?',
    refresh: 'Refresh', print: 'Print', back: 'Back', details: 'Details',
  },
  board: {
    title: 'Who is clocked in now', clockedIn: 'Clocked in', openAlerts: 'Open alerts', openAlertsLink: 'Open alerts: {{count}}. Show the alerts', outside: 'Outside the fence', notTracking: 'Not tracking', refreshed: 'Updated {{time}} · every {{seconds}} s',
    worker: 'Worker', since: 'Since', site: 'Site', position: 'Last position', fence: 'Fence', tracking: 'Tracking',
    inside: 'Inside', outsideTag: 'Outside', unknown: 'Unknown', on: 'On', off: 'Off', none: 'No worker is clocked in.',
    allSites: 'All sites', late: 'Late punches awaiting review', lateNone: 'No late punch awaits review.',
    event: 'Punch', captured: 'Captured', received: 'Received', delay: 'Delay', review: 'Mark reviewed', reviewed: 'Reviewed',
    clock_in: 'Clock in', clock_out: 'Clock out', gap: 'Suspicious gap', minutes: '{{n}} min',
    map: 'Map of the last positions', staleDot: 'Faded: not tracking (position older than the tracking window)',
  },
  workers: {
    search: 'Name or username', tags: 'Tags', status: 'Status', active: 'Active', disabled: 'Disabled', any: 'Any status',
    username: 'Username', fullName: 'Full name', password: 'Password', newPassword: 'New password', createdAt: 'Created',
    create: 'New worker', edit: 'Edit worker', resetPassword: 'Reset password', resetDevice: 'Reset device binding', resetDeviceConfirm: 'The worker’s next sign-in will bind the phone they use. Continue?',
    disable: 'Disable', enable: 'Enable', deleteConfirm: 'Delete this worker? Their history stays for reports.',
    usernameRule: '3 to 64 letters, digits, “.”, “_”, “@” or “-”.', passwordRule: 'At least {{count}} characters.', required: 'Required',
    detail: 'Worker', device: 'Bound device', noDevice: 'No device bound: the next sign-in binds one.', registeredAt: 'Bound', lastSeen: 'Last seen', lastSeenNever: 'Never: no position received yet.',
    clockState: 'Clock status', stateInSince: 'Clocked in since {{time}}', stateOutSince: 'Clocked out since {{time}}', stateIn: 'Clocked in', stateNever: 'Never clocked in', stateAt: ' at {{site}}', history: 'History', location: 'Location', security: 'Security', risk: 'Risk', score: 'score {{score}}',
    noHistory: 'No clock events yet.', historyTotal: 'Total: {{n}}', noLocation: 'No position known.', tracking: 'Tracking', notTracking: 'Not tracking', lastUpdate: 'Last update',
    recentAlerts: 'Recent alerts', noAlerts: 'No alert in the last 7 days.', manageTags: 'Tags', newTag: 'New tag', tagName: 'Tag name', renameTag: 'Rename', tagRule: 'A tag name cannot contain a comma.', tagLong: 'A tag name has at most 64 characters.', tagsHelp: 'Choose tags, or type a new one and press Enter: it is created when you save.', tagCount_one: '{{count}} worker', tagCount_other: '{{count}} workers',
    forced: 'forced', late: 'late', withinFence: 'inside the fence', outsideFence: 'outside the fence',
    voided: 'voided', corrected: 'corrected', auto: 'automatic',
    lockedUntil: 'Locked until {{time}}', lockedWhy: 'Too many failed sign-ins: the worker cannot sign in until then, unless you unlock them.',
    unlock: 'Unlock', unlockConfirm: 'Unlock {{name}}? They can sign in again at once.', unlocked: 'Unlocked',
  },
  sites: {
    name: 'Name', fence: 'Fence', qrCount: 'QR codes', timezone: 'Time zone', timezoneHelp: 'Hours worked here count on the local date of their clock-in in this zone.', closesAt: 'Closes at', noClosing: 'No closing time', closesAtHelp: 'Local time the site closes. A worker still clocked in then is reminded, and the session is closed automatically. Empty: only the work rules’ limit.', create: 'New site', edit: 'Edit site', default: 'default',
    noFence: 'No fence: clock events here are refused', circle: 'Circle', polygon: 'Polygon', none: 'None',
    centerLat: 'Centre latitude', centerLng: 'Centre longitude', radius: 'Radius (m)', vertices: 'Vertices', addVertex: 'Add vertex', lat: 'Latitude', lng: 'Longitude',
    mapHelp: 'Click the map to place the centre (circle) or add a vertex (polygon); or type the coordinates.', noTiles: 'No map tiles configured: the fence is drawn on a grid.',
    latRule: 'A latitude between −90 and 90.', lngRule: 'A longitude between −180 and 180.', radiusRule: 'From 1 to 100000 metres.', polygonRule: 'A polygon needs at least 3 vertices.',
    summaryCircle: 'circle, {{r}} m', summaryPolygon: 'polygon, {{n}} vertices',
    unfencedTitle_one: '{{names}} has no fence', unfencedTitle_other: '{{count}} sites have no fence: {{names}}', listSeparator: ', ',
    unfencedWhy: 'A site without a fence cannot be used for clocking: every punch at its QR codes is refused. Edit the site and draw its fence.',
    firstFenceTitle: 'Draw the fence of “{{site}}” before anyone clocks', drawFence: 'Draw the fence',
    firstFenceWhy: 'New QR codes go to this site unless you choose another, and nobody can clock at a site without a fence: until it has one, every punch there is refused.',
  },
  qr: {
    name: 'Name', site: 'Site', active: 'Active', inactive: 'Inactive', createdAt: 'Created', create: 'New QR code', allSites: 'All sites', anyState: 'Active or not',
    activate: 'Activate', deactivate: 'Deactivate', move: 'Move to site', printSheet: 'Print sheet', value: 'Value',
    unfencedNotOffered_one: '{{names}} is not offered: it has no fence.', unfencedNotOffered_other: 'Not offered, as they have no fence: {{names}}.',
    unfencedWhy: 'Nobody could clock at a code on a site without a fence. Draw the site’s fence first:', toSites: 'Sites',
    noFencedSite: 'No site has a fence yet, so a QR code could not be used. Draw a site’s fence first.',
    sheetHint: 'Scan to clock in or out', sheetInactive: 'This code is inactive: scans are refused until it is activated.',
    usable: 'Clocking', usableYes: 'Usable', usableNo: 'Not usable',
    reason: { INACTIVE: 'The code is inactive: activate it.', GEOFENCE_NOT_CONFIGURED: 'Its site has no fence: draw one on Sites.' },
  },
  alerts: {
    type: 'Type', severity: 'Severity', worker: 'Worker', time: 'Time', details: 'Details', since: 'Since', anyType: 'Any type', anySeverity: 'Any severity',
    none: 'No security alert.', low: 'Low', medium: 'Medium', high: 'High', noneOpen: 'No alert waits for a manager. Resolved alerts: choose “Resolved” or “All” in the status filter.',
    status: 'Status', statusFilter: { unresolved: 'Not resolved', open: 'Open', acknowledged: 'Acknowledged', resolved: 'Resolved', all: 'All' },
    statuses: { open: 'Open', acknowledged: 'Acknowledged', resolved: 'Resolved' },
    by_acknowledged: 'Acknowledged by {{name}}, {{time}}', by_resolved: 'Resolved by {{name}}, {{time}}', someone: 'a removed manager',
    acknowledge: 'Acknowledge', resolve: 'Resolve', note: 'Note (optional)', acknowledged: 'Acknowledged', resolvedDone: 'Resolved',
    acknowledgeHelp: 'You are looking into it: the alert stays in the list, marked with your name, until it is resolved.',
    resolveHelp: 'Handled: the alert leaves the default list (the status filter still shows it). Say what was done.',
    types: {
      geofence_violation: 'Outside the fence', device_mismatch: 'Other device', forced_clock_out: 'Forced clock-out', qr_invalid: 'Invalid QR code',
      impossible_travel: 'Impossible travel', implausible_accuracy: 'Implausible accuracy', duplicate_event: 'Duplicate punch', out_of_order_event: 'Punch out of order', late_punch: 'Late punch',
    },
  },
  blacklist: {
    title: 'Apps a worker’s phone must not run (mock locations)', packageId: 'Package identifier', add: 'Add', rule: 'A package identifier such as com.example.fakegps.',
    removeConfirm: 'Remove this app from the blacklist?', none: 'The blacklist is empty.',
  },
  webhooks: {
    url: 'URL', events: 'Events', description: 'Description', active: 'Active', create: 'New webhook', edit: 'Edit webhook',
    secretTitle: 'Signing secret', secretOnce: 'Copy this secret now: it will not be shown again.', rotate: 'Rotate secret', rotateConfirm: 'Deliveries will be signed with a new secret at once. Continue?',
    deliveries: 'Deliveries', status: 'Status', attempts: 'Attempts', lastStatus: 'Answer', resend: 'Re-send', none: 'No webhook yet.', noDeliveries: 'No delivery yet.',
    urlRule: 'An http:// or https:// URL.', eventsRule: 'Choose at least one event.',
    pending: 'Pending', processing: 'Sending', delivered: 'Delivered', failed: 'Failed', anyStatus: 'Any status',
  },
};

type Strings = typeof en;

const zh: Strings = {
  nav: { board: '实时看板', timesheets: '工时表', exceptions: '异常处理', rules: '工作规则', workers: '员工', sites: '场地', qr: '二维码', alerts: '安全告警', blacklist: '应用黑名单', webhooks: 'Webhook', open: '菜单', waiting_one: '{{count}} 项待处理或核对', waiting_other: '{{count}} 项待处理或核对' },
  state: { error: '加载失败', done: '已完成', saved: '已保存', deleted: '已删除', empty: '暂无数据', noMatch: '没有符合筛选条件的数据', loading: '加载中…' },
  error: { limited: '请求过于频繁，请 {{seconds}} 秒后再试。' },
  conflict: { username: '该用户名已被使用。', name: '该名称已被使用。' },
  code: {
    VALIDATION_ERROR: '', CONFLICT: '', NOT_FOUND: '该记录已不存在（可能已被他人删除），请刷新列表。',
    FORBIDDEN: '只有主管可以执行此操作。', GEOFENCE_NOT_CONFIGURED: '该场地尚未设置电子围栏。',
  },
  action: {
    search: '搜索', reset: '清除', create: '新建', edit: '编辑', save: '保存', cancel: '取消', delete: '删除', confirmDelete: '确定永久删除？',
    refresh: '刷新', print: '打印', back: '返回', details: '详情',
  },
  board: {
    title: '当前在岗人员', clockedIn: '在岗', openAlerts: '待处理告警', openAlertsLink: '待处理告警：{{count}}。查看告警', outside: '在围栏外', notTracking: '未在定位', refreshed: '更新于 {{time}} · 每 {{seconds}} 秒刷新',
    worker: '员工', since: '上班时间', site: '场地', position: '最后位置', fence: '围栏', tracking: '定位',
    inside: '围栏内', outsideTag: '围栏外', unknown: '未知', on: '开启', off: '关闭', none: '当前没有员工在岗。',
    allSites: '全部场地', late: '待审核的补传打卡', lateNone: '没有待审核的补传打卡。',
    event: '打卡', captured: '打卡时间', received: '收到时间', delay: '延迟', review: '标记已审核', reviewed: '已审核',
    clock_in: '上班', clock_out: '下班', gap: '间隔可疑', minutes: '{{n}} 分钟',
    map: '最后位置地图', staleDot: '浅色：未在定位（位置早于定位时间窗口）',
  },
  workers: {
    search: '姓名或用户名', tags: '标签', status: '状态', active: '启用', disabled: '停用', any: '全部状态',
    username: '用户名', fullName: '姓名', password: '密码', newPassword: '新密码', createdAt: '创建时间',
    create: '新建员工', edit: '编辑员工', resetPassword: '重置密码', resetDevice: '重置设备绑定', resetDeviceConfirm: '员工下次登录时将绑定其所用的手机。确定继续？',
    disable: '停用', enable: '启用', deleteConfirm: '确定删除该员工？其打卡记录仍会保留。',
    usernameRule: '3 到 64 个字母、数字或“.”“_”“@”“-”。', passwordRule: '至少 {{count}} 个字符。', required: '必填',
    detail: '员工', device: '绑定设备', noDevice: '未绑定设备：下次登录时自动绑定。', registeredAt: '绑定时间', lastSeen: '最近出现', lastSeenNever: '从未出现：尚未收到任何位置。',
    clockState: '打卡状态', stateInSince: '自 {{time}} 起在岗', stateOutSince: '自 {{time}} 起已下班', stateIn: '在岗', stateNever: '从未打卡', stateAt: '（{{site}}）', history: '打卡记录', location: '位置', security: '安全', risk: '风险', score: '评分 {{score}}',
    noHistory: '暂无打卡记录。', historyTotal: '共 {{n}} 条', noLocation: '暂无位置信息。', tracking: '定位中', notTracking: '未在定位', lastUpdate: '最近更新',
    recentAlerts: '近期告警', noAlerts: '最近 7 天没有告警。', manageTags: '标签', newTag: '新标签', tagName: '标签名称', renameTag: '重命名', tagRule: '标签名称不能包含逗号。', tagLong: '标签名称最多 64 个字符。', tagsHelp: '选择标签，或输入新标签后按回车：保存时自动创建。', tagCount_one: '{{count}} 名员工', tagCount_other: '{{count}} 名员工',
    forced: '强制', late: '补传', withinFence: '在围栏内', outsideFence: '在围栏外',
    voided: '已作废', corrected: '已更正', auto: '自动',
    lockedUntil: '锁定至 {{time}}', lockedWhy: '登录失败次数过多：在此之前该员工无法登录，除非你为其解锁。',
    unlock: '解锁', unlockConfirm: '确定为 {{name}} 解锁？其可立即重新登录。', unlocked: '已解锁',
  },
  sites: {
    name: '名称', fence: '电子围栏', qrCount: '二维码数', timezone: '时区', timezoneHelp: '在此工作的工时计入上班打卡时该时区的本地日期。', closesAt: '关门时间', noClosing: '无关门时间', closesAtHelp: '场地关门的本地时间。届时仍未下班的员工会收到提醒，工段将被自动结束。留空：只按工作规则的上限。', create: '新建场地', edit: '编辑场地', default: '默认',
    noFence: '未设置围栏：此处的打卡将被拒绝', circle: '圆形', polygon: '多边形', none: '无',
    centerLat: '中心纬度', centerLng: '中心经度', radius: '半径（米）', vertices: '顶点', addVertex: '添加顶点', lat: '纬度', lng: '经度',
    mapHelp: '点击地图放置中心（圆形）或添加顶点（多边形）；也可直接输入坐标。', noTiles: '未配置地图瓦片：围栏绘制在网格上。',
    latRule: '纬度应在 −90 到 90 之间。', lngRule: '经度应在 −180 到 180 之间。', radiusRule: '1 到 100000 米。', polygonRule: '多边形至少需要 3 个顶点。',
    summaryCircle: '圆形，半径 {{r}} 米', summaryPolygon: '多边形，{{n}} 个顶点',
    unfencedTitle_one: '尚未设置电子围栏的场地：{{names}}', unfencedTitle_other: '尚未设置电子围栏的场地：{{names}}', listSeparator: '、',
    unfencedWhy: '没有电子围栏的场地不能用于打卡：在其二维码上的每次打卡都会被拒绝。请编辑该场地并绘制围栏。',
    firstFenceTitle: '员工打卡前，请先绘制“{{site}}”的电子围栏', drawFence: '绘制围栏',
    firstFenceWhy: '新建二维码如不另选场地，都会归入此场地；而没有电子围栏的场地无法打卡：设置围栏之前，这里的每次打卡都会被拒绝。',
  },
  qr: {
    name: '名称', site: '场地', active: '启用', inactive: '停用', createdAt: '创建时间', create: '新建二维码', allSites: '全部场地', anyState: '全部状态',
    activate: '启用', deactivate: '停用', move: '移到场地', printSheet: '打印', value: '编码',
    unfencedNotOffered_one: '未提供没有电子围栏的场地：{{names}}。', unfencedNotOffered_other: '未提供没有电子围栏的场地：{{names}}。',
    unfencedWhy: '在没有电子围栏的场地上，二维码无法用于打卡。请先绘制场地的围栏：', toSites: '场地',
    noFencedSite: '还没有任何场地设置了电子围栏，二维码将无法使用。请先绘制场地的围栏。',
    sheetHint: '扫码上下班打卡', sheetInactive: '此二维码已停用：启用前扫码将被拒绝。',
    usable: '能否打卡', usableYes: '可用', usableNo: '不可用',
    reason: { INACTIVE: '二维码已停用：请先启用。', GEOFENCE_NOT_CONFIGURED: '所在场地没有电子围栏：请在“场地”中绘制。' },
  },
  alerts: {
    type: '类型', severity: '级别', worker: '员工', time: '时间', details: '详情', since: '起始时间', anyType: '全部类型', anySeverity: '全部级别',
    none: '暂无安全告警。', low: '低', medium: '中', high: '高', noneOpen: '没有等待主管处理的告警。已解决的告警：在状态筛选中选择“已解决”或“全部”。',
    status: '状态', statusFilter: { unresolved: '未解决', open: '待处理', acknowledged: '已确认', resolved: '已解决', all: '全部' },
    statuses: { open: '待处理', acknowledged: '已确认', resolved: '已解决' },
    by_acknowledged: '{{name}} 于 {{time}} 确认', by_resolved: '{{name}} 于 {{time}} 解决', someone: '已删除的主管',
    acknowledge: '确认', resolve: '解决', note: '备注（可选）', acknowledged: '已确认', resolvedDone: '已解决',
    acknowledgeHelp: '表示您正在处理：告警仍留在列表中并标明您的名字，直到解决。',
    resolveHelp: '已处理：告警将离开默认列表（状态筛选仍可查看）。请说明处理情况。',
    types: {
      geofence_violation: '超出围栏', device_mismatch: '非绑定设备', forced_clock_out: '强制下班', qr_invalid: '无效二维码',
      impossible_travel: '不可能的移动', implausible_accuracy: '定位精度异常', duplicate_event: '重复打卡', out_of_order_event: '打卡顺序异常', late_punch: '补传打卡',
    },
  },
  blacklist: {
    title: '员工手机上禁止运行的应用（虚拟定位）', packageId: '应用包名', add: '添加', rule: '应用包名，例如 com.example.fakegps。',
    removeConfirm: '确定从黑名单移除该应用？', none: '黑名单为空。',
  },
  webhooks: {
    url: '地址', events: '事件', description: '说明', active: '启用', create: '新建 Webhook', edit: '编辑 Webhook',
    secretTitle: '签名密钥', secretOnce: '请立即复制此密钥：之后不会再显示。', rotate: '更换密钥', rotateConfirm: '之后的推送将立即使用新密钥签名。确定继续？',
    deliveries: '推送记录', status: '状态', attempts: '尝试次数', lastStatus: '响应', resend: '重新推送', none: '暂无 Webhook。', noDeliveries: '暂无推送记录。',
    urlRule: '以 http:// 或 https:// 开头的地址。', eventsRule: '至少选择一个事件。',
    pending: '待推送', processing: '推送中', delivered: '已送达', failed: '失败', anyStatus: '全部状态',
  },
};

export const strings = { 'en-US': en, 'zh-CN': zh };

/** The kit's words (namespace `kit`) in the console's wording. */
const kit = (m: Strings, common: typeof enCommon): KitStrings => ({
  state: { ...m.state, emptyFiltered: m.state.noMatch },
  action: { ...m.action, retry: common.action.retry },
  error: { network: common.error.network },
});
export const kitStrings = { 'en-US': kit(en, enCommon), 'zh-CN': kit(zh, zhCommon) };
