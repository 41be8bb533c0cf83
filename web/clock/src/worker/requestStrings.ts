// The words of the worker's correction requests (namespace `requests`), in both languages: the
// request form, the list of requests, the decisions shown at the app's opening, and every refusal
// of a request. Loaded with those screens only (their own chunk), not with the clock screen.
export const requestStrings = {
  'en-US': {
    sheet: {
      title: 'Request a correction', punch_clock_in: 'Clock-in of {{time}}', punch_clock_out: 'Clock-out of {{time}}',
      kind: 'What is wrong?', move: 'The time is wrong', add: 'I forgot to clock out',
      moveAt: 'The right time', addAt: 'When I stopped working', reason: 'Why (your manager reads it)', reasonHint: 'For example: I forgot to clock out when I left at 17:05.',
      send: 'Send the request', sending: 'Sending…', cancel: 'Cancel', required: 'Say why, in a few words.', timeRequired: 'Choose the time.',
      future: 'The time cannot be in the future.', sameTime: 'Choose a time different from the punch’s.',
      how: 'Your manager checks it against your positions and decides. Nothing changes until then.',
    },
    sent: 'Request sent: your manager will decide. You can follow it under Requests.',
    list: {
      title: 'My correction requests', empty: 'No request yet. To ask for one, open History and tap “Correct” next to a punch.',
      asked: 'Asked {{time}}', decided: 'Decided {{time}}', withdrawn: 'Withdrawn {{time}}', note: 'Note from {{name}}: “{{note}}”', manager: 'your manager',
      cancel: 'Withdraw', cancelNamed: 'Withdraw the request: {{what}}', cancelled: 'Request withdrawn.', byManager: 'Corrected by {{name}}',
      reason: 'Reason: {{reason}}',
    },
    status: { pending: 'Waiting for your manager', approved: 'Approved', rejected: 'Rejected', cancelled: 'Withdrawn' },
    what: {
      add_clock_in: 'Add a clock-in at {{time}}', add_clock_out: 'Add a clock-out at {{time}}',
      move_clock_in: 'Change the clock-in of {{from}} to {{to}}', move_clock_out: 'Change the clock-out of {{from}} to {{to}}',
      void_clock_in: 'Void the clock-in of {{time}}', void_clock_out: 'Void the clock-out of {{time}}', void_session: 'Void the session {{from}} – {{to}}',
      other: 'Correct a punch',
    },
    decision: {
      approved: 'Your request was approved: {{what}}.', rejected: 'Your request was rejected: {{what}}.',
      made: 'Your manager corrected your punches: {{what}}. Reason: {{reason}}', unknown_approved: 'A correction request of yours was approved.', unknown_rejected: 'A correction request of yours was rejected.',
      note: 'Note from your manager: “{{note}}”', dismiss: 'OK',
      reminder_left_fence: 'You left the site but are still clocked in (since {{start}}). If you stopped working, clock out.',
      reminder_site_closed: 'The site has closed but you are still clocked in (since {{start}}). If you stopped working, clock out.',
      auto_left_fence: 'You forgot to clock out: your session was closed automatically at {{closed}}, your last position inside the site. If that is wrong, ask for a correction from History.',
      auto_limit: 'You forgot to clock out: your session was closed automatically at {{closed}} (the longest a session may stay open). If that is wrong, ask for a correction from History.',
    },
    refusal: {
      breaksOrder: 'This would leave your {{type}} of {{time}} out of order: clock-ins and clock-outs must alternate, and a clock-out needs a clock-in before it. If that punch is wrong, ask for its correction first.',
      breaksOrderFirst: 'This would leave a clock-out with no clock-in before it. Clock-ins and clock-outs must alternate.',
      pending: 'You already asked for a correction of this punch: it waits for your manager. You can follow it (or withdraw it) under Requests.',
      corrected: 'This punch was already corrected. Reload your history and correct the punch that replaced it.',
      decided: 'Your manager already decided this request.',
      other: 'Not sent: {{message}}',
      type_clock_in: 'clock-in', type_clock_out: 'clock-out',
    },
  },
  'zh-CN': {
    sheet: {
      title: '申请更正', punch_clock_in: '{{time}} 的上班打卡', punch_clock_out: '{{time}} 的下班打卡',
      kind: '哪里不对？', move: '时间不对', add: '忘记下班打卡',
      moveAt: '正确的时间', addAt: '实际下班时间', reason: '原因（主管会看到）', reasonHint: '例如：17:05 离开时忘记下班打卡。',
      send: '提交申请', sending: '正在提交…', cancel: '取消', required: '请简单说明原因。', timeRequired: '请选择时间。',
      future: '时间不能晚于现在。', sameTime: '请选择与原打卡不同的时间。',
      how: '主管会对照您的位置记录进行核实并作出决定。在此之前记录不会改变。',
    },
    sent: '申请已提交：等待主管处理。可在“申请”页面查看进度。',
    list: {
      title: '我的更正申请', empty: '还没有申请。如需更正，请打开“记录”，点按打卡旁的“更正”。',
      asked: '申请于 {{time}}', decided: '处理于 {{time}}', withdrawn: '撤回于 {{time}}', note: '{{name}} 的备注：“{{note}}”', manager: '主管',
      cancel: '撤回', cancelNamed: '撤回申请：{{what}}', cancelled: '申请已撤回。', byManager: '由 {{name}} 更正',
      reason: '原因：{{reason}}',
    },
    status: { pending: '等待主管处理', approved: '已批准', rejected: '已驳回', cancelled: '已撤回' },
    what: {
      add_clock_in: '补记上班打卡：{{time}}', add_clock_out: '补记下班打卡：{{time}}',
      move_clock_in: '将 {{from}} 的上班打卡改为 {{to}}', move_clock_out: '将 {{from}} 的下班打卡改为 {{to}}',
      void_clock_in: '作废 {{time}} 的上班打卡', void_clock_out: '作废 {{time}} 的下班打卡', void_session: '作废工段 {{from}} – {{to}}',
      other: '更正打卡',
    },
    decision: {
      approved: '您的申请已批准：{{what}}。', rejected: '您的申请被驳回：{{what}}。',
      made: '主管更正了您的打卡：{{what}}。原因：{{reason}}', unknown_approved: '您的一项更正申请已批准。', unknown_rejected: '您的一项更正申请被驳回。',
      note: '主管备注：“{{note}}”', dismiss: '好的',
      reminder_left_fence: '您已离开场地，但仍处于上班状态（自 {{start}} 起）。如已停止工作，请下班打卡。',
      reminder_site_closed: '场地已关门，但您仍处于上班状态（自 {{start}} 起）。如已停止工作，请下班打卡。',
      auto_left_fence: '您忘记下班打卡：工段已在 {{closed}}（您在场地内的最后位置）自动结束。如有误，请在“记录”中申请更正。',
      auto_limit: '您忘记下班打卡：工段已在 {{closed}}（工段可保持的最长时间）自动结束。如有误，请在“记录”中申请更正。',
    },
    refusal: {
      breaksOrder: '这样会使您 {{time}} 的{{type}}顺序错乱：上班和下班打卡必须交替，且下班打卡之前必须有上班打卡。如果那条打卡有误，请先申请更正它。',
      breaksOrderFirst: '这样会出现一条之前没有上班打卡的下班打卡。上班和下班打卡必须交替。',
      pending: '您已申请更正这条打卡，正在等待主管处理。可在“申请”页面查看或撤回。',
      corrected: '这条打卡已被更正。请刷新记录，更正替换它的那条打卡。',
      decided: '主管已经处理了这项申请。',
      other: '未提交：{{message}}',
      type_clock_in: '上班打卡', type_clock_out: '下班打卡',
    },
  },
};
