// The strings of the manager console's hours screens (namespace `hours`): Timesheets and Work rules.
const en = {
  period: { label: 'Period', thisWeek: 'This week', lastWeek: 'Last week', thisMonth: 'This month', lastMonth: 'Last month', custom: 'Custom' },
  filter: { search: 'Worker', searchHint: 'Name or username', tag: 'Tag', site: 'Site', sort: 'Sort', byName: 'By name', byHours: 'Most hours first' },
  col: {
    worker: 'Worker', paid: 'Paid', regular: 'Regular', overtime: 'Overtime', break: 'Break', worked: 'Worked', days: 'Days', flags: 'To check',
    date: 'Day', site: 'Site', start: 'In', end: 'Out', sessions: 'Sessions',
  },
  flag: {
    open: 'Open', late: 'Late', forced: 'Forced', break_deducted: 'Break deducted', long: 'Long', edited: 'Edited',
    open_help: 'Clocked in without clocking out yet: counts up to now while the period includes today, nothing otherwise.',
    late_help: 'A punch made offline and sent late: check it was really made then.',
    forced_help: 'The worker ended the session with a forced clock-out (no code, no fence check).',
    break_deducted_help: 'The recorded breaks were shorter than the break rules require: the shortfall was deducted from paid time.',
    long_help: 'A session longer than the work rules’ limit: maybe a forgotten clock-out.',
    edited_help: 'A correction added, moved or voided a punch of this session: its history shows what changed, by whom and why.',
  },
  none: 'Nothing to check',
  empty: 'No worker matches these filters.',
  total: 'Total for the period',
  open: 'Show days',
  detailTitle: '{{name}}: {{from}} to {{to}}',
  noSessions: 'No work this day',
  running: 'still clocked in',
  week: 'Week of {{date}}',
  export: { title: 'Export for payroll', csv: 'Export CSV', xlsx: 'Export XLSX', detail: 'Rows', workers: 'One per worker', days: 'One per day', sessions: 'One per session', working: 'Preparing the file…', ready: 'The file is ready: it downloads now.', failed: 'The export failed: {{reason}}', again: 'Download again' },
  bar: { label: 'Sessions of {{date}}: {{text}}' },
  rules: {
    intro: 'How punches become paid hours. Changes apply to every timesheet from now on (periods are not locked yet).',
    week: 'Weeks start on', daily: 'Daily overtime after', weekly: 'Weekly overtime after', off: 'No overtime rule', hours: 'hours',
    breaks: 'Required breaks', breakAfter: 'After more than (hours)', breakMinutes: 'Break (minutes)', addBreak: 'Add a break rule', noBreaks: 'No break rule: only the breaks workers record are unpaid.',
    breakHelp: 'When a day’s recorded breaks are shorter than required, only the shortfall is deducted.',
    rounding: 'Round each session', roundingNone: 'Do not round', nearest: 'To the nearest', up: 'Up to', down: 'Down to', minutes: 'minutes',
    long: 'Flag sessions longer than', saved: 'Work rules saved', changedBy: 'Last changed by {{name}}, {{time}}', defaults: 'The default rules (never changed).',
    example: 'Example day', exampleHelp: 'Change the sessions to see how the rules count them.', addSession: 'Add a session', from: 'In', to: 'Out',
    result: 'Worked {{worked}} · break {{break}} · paid {{paid}} · regular {{regular}} · overtime {{overtime}}', computing: 'Computing…',
    days: { 1: 'Monday', 2: 'Tuesday', 3: 'Wednesday', 4: 'Thursday', 5: 'Friday', 6: 'Saturday', 7: 'Sunday' },
  },
};

type Strings = typeof en;

const zh: Strings = {
  period: { label: '期间', thisWeek: '本周', lastWeek: '上周', thisMonth: '本月', lastMonth: '上月', custom: '自定义' },
  filter: { search: '员工', searchHint: '姓名或用户名', tag: '标签', site: '场地', sort: '排序', byName: '按姓名', byHours: '工时多的在前' },
  col: {
    worker: '员工', paid: '计薪', regular: '正常', overtime: '加班', break: '休息', worked: '工作', days: '天数', flags: '待核对',
    date: '日期', site: '场地', start: '上班', end: '下班', sessions: '工段',
  },
  flag: {
    open: '未下班', late: '延迟', forced: '强制下班', break_deducted: '扣除休息', long: '过长', edited: '已更正',
    open_help: '已上班但尚未下班：期间包含今天时计到现在，否则不计。',
    late_help: '离线时打卡、稍后才发送：请核实确实在那时打卡。',
    forced_help: '员工以强制下班结束了工段（未扫码、未校验围栏）。',
    break_deducted_help: '记录的休息短于休息规则的要求：差额已从计薪时间中扣除。',
    long_help: '工段超过工作规则的上限：可能忘记下班打卡。',
    edited_help: '此工段的打卡经过更正（补打、调整或作废）：其历史记录显示改了什么、由谁、为何。',
  },
  none: '无需核对',
  empty: '没有符合筛选条件的员工。',
  total: '期间合计',
  open: '查看每天',
  detailTitle: '{{name}}：{{from}} 至 {{to}}',
  noSessions: '当天无工作',
  running: '仍在上班',
  week: '{{date}} 起的一周',
  export: { title: '导出工资数据', csv: '导出 CSV', xlsx: '导出 XLSX', detail: '行', workers: '每位员工一行', days: '每天一行', sessions: '每个工段一行', working: '正在生成文件…', ready: '文件已生成，正在下载。', failed: '导出失败：{{reason}}', again: '再次下载' },
  bar: { label: '{{date}} 的工段：{{text}}' },
  rules: {
    intro: '打卡如何折算为计薪工时。修改对此后计算的所有工时表生效（期间尚未锁定）。',
    week: '每周开始于', daily: '每日加班起算', weekly: '每周加班起算', off: '不计加班', hours: '小时',
    breaks: '必须休息', breakAfter: '工作超过（小时）', breakMinutes: '休息（分钟）', addBreak: '添加休息规则', noBreaks: '无休息规则：只有员工记录的休息不计薪。',
    breakHelp: '当天记录的休息短于要求时，只扣除差额。',
    rounding: '每个工段取整', roundingNone: '不取整', nearest: '就近取整到', up: '向上取整到', down: '向下取整到', minutes: '分钟',
    long: '工段超过此时长时标记', saved: '工作规则已保存', changedBy: '最后由 {{name}} 于 {{time}} 修改', defaults: '默认规则（从未修改）。',
    example: '示例工作日', exampleHelp: '修改工段，查看规则如何计算。', addSession: '添加工段', from: '上班', to: '下班',
    result: '工作 {{worked}} · 休息 {{break}} · 计薪 {{paid}} · 正常 {{regular}} · 加班 {{overtime}}', computing: '计算中…',
    days: { 1: '星期一', 2: '星期二', 3: '星期三', 4: '星期四', 5: '星期五', 6: '星期六', 7: '星期日' },
  },
};

export const hoursStrings = { 'en-US': en, 'zh-CN': zh };

