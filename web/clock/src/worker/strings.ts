// The worker app's words, in both languages (the namespace `worker`), and the explanation of every
// refusal of a punch from the server's code and details. No React here: the unit tests use it.
import type { TFunction } from 'i18next';

export const strings = {
  'en-US': {
    nav: { label: 'Screens', clock: 'Clock', history: 'History', requests: 'Requests', security: 'Security' },
    state: {
      in: 'Clocked in', out: 'Clocked out', since: 'since {{time}}', never: 'No punch yet',
      at: 'at {{site}}', queued: 'Waiting to send — shown as if sent',
    },
    action: { clock_in: 'Clock in', clock_out: 'Clock out', cancel: 'Cancel', photo: 'Take a photo of the code', retryNow: 'Send now', dismiss: 'OK', refresh: 'Refresh' },
    scan: {
      label: 'Camera', turnOn: 'Tap to turn the camera on', read: 'Site code read',
      hint: 'Hold the QR code posted at your site inside the frame.',
      point: 'Point the camera at the site’s code', ready: 'Site code read: tap to send',
      position: 'Position: ±{{accuracy}} m', positionWaiting: 'Finding your position…',
      sending: 'Sending…', noCamera: 'The camera is not available or not allowed. Take a photo of the code instead.',
      noCode: 'No QR code found in this photo. Take it again, closer and sharper.',
    },
    geo: {
      denied: 'Location is not allowed for this site. Allow it in the browser’s settings: a punch needs your position.',
      unavailable: 'Your position could not be found. Go outside or near a window and try again.',
      timeout: 'Finding your position took too long. Try again.',
      unsupported: 'This browser cannot give your position.',
    },
    done: {
      clock_in: 'Clocked in at {{time}}', clock_out: 'Clocked out at {{time}}',
      queued_clock_in: 'No connection: your clock-in ({{time}}) is kept on this phone and will be sent automatically.',
      queued_clock_out: 'No connection: your clock-out ({{time}}) is kept on this phone and will be sent automatically.',
      serverError_clock_in: 'The server could not take it just now: your clock-in ({{time}}) is kept on this phone and will be sent again automatically.',
      serverError_clock_out: 'The server could not take it just now: your clock-out ({{time}}) is kept on this phone and will be sent again automatically.',
      late: 'Sent later; your manager sees it was sent late.',
    },
    confirmed: {
      clock_in: 'Clock-in recorded', clock_out: 'Clock-out recorded',
      queued_clock_in: 'Clock-in kept on this phone', queued_clock_out: 'Clock-out kept on this phone',
      again: 'For the next punch, the code is read again',
    },
    queue: {
      title: 'Waiting to send', item_clock_in: 'Clock-in at {{time}}', item_clock_out: 'Clock-out at {{time}}',
      why: 'Will be sent automatically as soon as the server can take it.',
      refusedTitle: 'Not recorded', refused_clock_in: 'Your clock-in of {{time}} was not recorded: {{reason}}', refused_clock_out: 'Your clock-out of {{time}} was not recorded: {{reason}}',
      sent_clock_in: 'Your clock-in of {{time}} has been sent.', sent_clock_out: 'Your clock-out of {{time}} has been sent.',
    },
    refusal: {
      outside: 'You are {{distance}} m outside the site’s area. Go to the site and try again.',
      qrInactive: 'This QR code is not in use (unknown or switched off). Scan the code posted at your site, or ask your manager.',
      already_clock_in: 'You are already clocked in.',
      already_clock_out: 'You are already clocked out.',
      tooSoon_clock_in: 'You clocked in {{seconds}} seconds ago, so this looks like a double tap and was not recorded. If you really mean to clock out, wait {{wait}} s and tap again.',
      tooSoon_clock_out: 'You clocked out {{seconds}} seconds ago, so this looks like a double tap and was not recorded. If you really mean to clock in, wait {{wait}} s and tap again.',
      device: 'This phone is not authorised for your account. Ask your manager to reset the device binding.',
      limited: 'Too many attempts. Wait {{seconds}} s: the punch will be sent then.',
      noFence: 'This site has no area set up, so punches there cannot be checked. Ask your manager to set it.',
      later: 'A later punch ({{time}}) is already recorded, so this one cannot be added before it. Ask your manager to correct your hours.',
      tooOld: 'This punch is too old to be accepted. Ask your manager to record it.',
      future: 'Your phone’s clock is wrong. Set the date and time automatically and try again.',
      disabled: 'Your account cannot clock. Ask your manager.',
      other: 'The punch was refused: {{message}}',
    },
    tracking: { on: 'Location sharing is on while you are clocked in (every minute).', off: 'Location sharing is off (you are clocked out).', last: 'Last sent {{time}}', send: 'Send my position now', sent: 'Position sent' },
    history: {
      title: 'My punches', empty: 'No punches yet.', forced: 'Forced clock-out', late: 'sent late', site: 'Site', code: 'Code',
      voided: 'Voided by a correction: not counted', origin_correction: 'Corrected', origin_auto: 'Closed automatically',
      correct: 'Correct', correctNamed_clock_in: 'Correct the clock-in of {{day}}, {{time}}', correctNamed_clock_out: 'Correct the clock-out of {{day}}, {{time}}',
      requestSent: 'Request sent: your manager will decide. Follow it under',
      addSession: 'I forgot to clock in and out',
    },
    hours: { today: 'Today', week: 'This week', paid: '{{time}} paid', weekOf: 'Week of {{date}}:', nearMax: 'Nearly at the daily maximum of {{max}} paid: {{left}} left today. Plan to clock out.', overMax: 'Over the daily maximum of {{max}} paid today. Clock out when you can, and tell your manager.' },
    warning: { shortRest: 'Clocked in, but only {{rest}} after your last day ended: the minimum rest is {{min}}. Your manager is told.' },
    security: {
      title: 'Security status', level_low: 'All good', level_medium: 'Some warnings', level_high: 'Serious warnings',
      explain_low: 'Nothing unusual was noticed about your punches recently.',
      explain_medium: 'Some of your recent punches looked unusual. Your manager may ask you about them.',
      explain_high: 'Several recent punches looked wrong. Your manager will check them.',
      score: 'Risk score {{score}} of 100', recent: 'Recent alerts (7 days)', none: 'No alerts in the last 7 days.',
      alert: {
        geofence_violation: 'A punch was tried outside the site’s area.',
        device_mismatch: 'Someone tried to use your account from another phone.',
        forced_clock_out: 'A forced clock-out was recorded.',
        qr_invalid: 'A QR code that is not in use was scanned.',
        impossible_travel: 'Two positions too far apart for the time between them.',
        implausible_accuracy: 'A position with an implausible accuracy was sent.',
        duplicate_event: 'A clock-in or clock-out was repeated.',
        out_of_order_event: 'A punch arrived after a later one was already recorded.',
        late_punch: 'A punch was sent long after it was made.',
      },
      severity: { low: 'low', medium: 'medium', high: 'high' },
    },
    loadFailed: 'Could not load: {{reason}}',
    cached: { updating: 'As of {{time}} (kept on this phone) · updating…', failed: 'As of {{time}} (kept on this phone). Not updated: {{reason}}' },
  },
  'zh-CN': {
    nav: { label: '页面', clock: '打卡', history: '记录', requests: '申请', security: '安全' },
    state: {
      in: '已上班', out: '已下班', since: '自 {{time}}', never: '还没有打卡记录',
      at: '地点：{{site}}', queued: '等待发送——按已发送显示',
    },
    action: { clock_in: '上班打卡', clock_out: '下班打卡', cancel: '取消', photo: '拍摄二维码照片', retryNow: '立即发送', dismiss: '好的', refresh: '刷新' },
    scan: {
      label: '摄像头', turnOn: '点按开启摄像头', read: '已识别场地二维码',
      hint: '将场地张贴的二维码放在框内。',
      point: '请将摄像头对准场地二维码', ready: '已识别场地二维码：点按即发送',
      position: '位置精度：±{{accuracy}} 米', positionWaiting: '正在获取位置…',
      sending: '正在发送…', noCamera: '无法使用摄像头或未获允许。请改为拍摄二维码照片。',
      noCode: '照片中没有找到二维码。请靠近一些、拍清楚后再试。',
    },
    geo: {
      denied: '本网站未获准使用位置。请在浏览器设置中允许：打卡需要您的位置。',
      unavailable: '无法获取您的位置。请到室外或靠近窗户后再试。',
      timeout: '获取位置时间过长，请重试。',
      unsupported: '此浏览器无法提供位置。',
    },
    done: {
      clock_in: '已于 {{time}} 上班打卡', clock_out: '已于 {{time}} 下班打卡',
      queued_clock_in: '无网络：您的上班打卡（{{time}}）已保存在本机，联网后会自动发送。',
      queued_clock_out: '无网络：您的下班打卡（{{time}}）已保存在本机，联网后会自动发送。',
      serverError_clock_in: '服务器暂时无法处理：您的上班打卡（{{time}}）已保存在本机，稍后会自动重新发送。',
      serverError_clock_out: '服务器暂时无法处理：您的下班打卡（{{time}}）已保存在本机，稍后会自动重新发送。',
      late: '延迟发送；主管会看到这是延迟发送的。',
    },
    confirmed: {
      clock_in: '上班打卡已记录', clock_out: '下班打卡已记录',
      queued_clock_in: '上班打卡已保存在本机', queued_clock_out: '下班打卡已保存在本机',
      again: '下次打卡需重新识别二维码',
    },
    queue: {
      title: '等待发送', item_clock_in: '上班打卡 {{time}}', item_clock_out: '下班打卡 {{time}}',
      why: '服务器可以接收时会自动发送。',
      refusedTitle: '未记录', refused_clock_in: '您 {{time}} 的上班打卡未被记录：{{reason}}', refused_clock_out: '您 {{time}} 的下班打卡未被记录：{{reason}}',
      sent_clock_in: '您 {{time}} 的上班打卡已发送。', sent_clock_out: '您 {{time}} 的下班打卡已发送。',
    },
    refusal: {
      outside: '您在场地范围外 {{distance}} 米。请到场地内再试。',
      qrInactive: '此二维码未启用（不存在或已停用）。请扫描场地张贴的二维码，或询问主管。',
      already_clock_in: '您已经上班打卡了。',
      already_clock_out: '您已经下班打卡了。',
      tooSoon_clock_in: '您在 {{seconds}} 秒前刚上班打卡，这次像是重复点按，未记录。如确实要下班打卡，请等 {{wait}} 秒后再点。',
      tooSoon_clock_out: '您在 {{seconds}} 秒前刚下班打卡，这次像是重复点按，未记录。如确实要上班打卡，请等 {{wait}} 秒后再点。',
      device: '此手机未获授权使用您的账号。请让主管重置设备绑定。',
      limited: '尝试次数过多。请等待 {{seconds}} 秒，届时会自动发送。',
      noFence: '此场地尚未设置范围，无法核对打卡。请让主管设置。',
      later: '已有更晚的打卡记录（{{time}}），不能在其之前补记。请让主管更正您的工时。',
      tooOld: '此打卡时间过早，无法接受。请让主管补记。',
      future: '您手机的时间不正确。请设置为自动日期和时间后再试。',
      disabled: '您的账号不能打卡。请询问主管。',
      other: '打卡被拒绝：{{message}}',
    },
    tracking: { on: '上班期间位置共享已开启（每分钟一次）。', off: '位置共享已关闭（您已下班）。', last: '上次发送 {{time}}', send: '立即发送我的位置', sent: '位置已发送' },
    history: {
      title: '我的打卡', empty: '还没有打卡记录。', forced: '强制下班', late: '延迟发送', site: '场地', code: '二维码',
      voided: '已被更正作废：不计入工时', origin_correction: '已更正', origin_auto: '自动下班',
      correct: '更正', correctNamed_clock_in: '更正 {{day}} {{time}} 的上班打卡', correctNamed_clock_out: '更正 {{day}} {{time}} 的下班打卡',
      requestSent: '申请已提交：等待主管处理。查看进度：',
      addSession: '忘记上班和下班打卡',
    },
    hours: { today: '今天', week: '本周', paid: '计薪 {{time}}', weekOf: '{{date}} 起的一周：', nearMax: '即将达到每日计薪上限 {{max}}：今天还剩 {{left}}。请准备下班打卡。', overMax: '今天已超过每日计薪上限 {{max}}。请尽快下班打卡，并告知主管。' },
    warning: { shortRest: '已上班，但距上一个工作日结束只有 {{rest}}：最短休息为 {{min}}。主管会收到通知。' },
    security: {
      title: '安全状态', level_low: '一切正常', level_medium: '有一些警告', level_high: '有严重警告',
      explain_low: '最近您的打卡没有发现异常。',
      explain_medium: '您最近的一些打卡看起来不寻常，主管可能会询问您。',
      explain_high: '您最近的多次打卡看起来有问题，主管会进行核查。',
      score: '风险分 {{score}}/100', recent: '最近的警报（7 天）', none: '最近 7 天没有警报。',
      alert: {
        geofence_violation: '有一次在场地范围外尝试打卡。',
        device_mismatch: '有人尝试用另一部手机登录您的账号。',
        forced_clock_out: '记录了一次强制下班。',
        qr_invalid: '扫描了一个未启用的二维码。',
        impossible_travel: '两次位置相距太远，时间上不可能到达。',
        implausible_accuracy: '发送了精度不可信的位置。',
        duplicate_event: '重复了上班或下班打卡。',
        out_of_order_event: '一条打卡在更晚的记录之后才到达。',
        late_punch: '一条打卡在很久之后才发送。',
      },
      severity: { low: '低', medium: '中', high: '高' },
    },
    loadFailed: '无法加载：{{reason}}',
    cached: { updating: '截至 {{time}}（本机保存）· 正在更新…', failed: '截至 {{time}}（本机保存）。未能更新：{{reason}}' },
  },
};

interface Refusal {
  status: number;
  code: string;
  message: string;
  details: Record<string, unknown>;
  retryAfter?: number | undefined;
}

const isRefusal = (e: unknown): e is Refusal =>
  typeof e === 'object' && e !== null && typeof (e as Refusal).status === 'number' && typeof (e as Refusal).code === 'string';

/** A punch within the duplicate-punch window of the last one: when that was, and how long to wait. */
function tooSoon(d: Record<string, unknown>, t: TFunction): string {
  const last = d.lastEventType === 'clock_in' ? 'clock_in' : 'clock_out';
  const seconds = typeof d.secondsSinceLastEvent === 'number' ? Math.max(0, Math.round(d.secondsSinceLastEvent)) : 0;
  const wait = typeof d.retryAfterSeconds === 'number' ? Math.max(1, Math.ceil(d.retryAfterSeconds))
    : typeof d.minIntervalSeconds === 'number' ? Math.max(1, Math.ceil(d.minIntervalSeconds - seconds)) : 10;
  return t(`refusal.tooSoon_${last}`, { seconds, wait });
}

/**
 * Why the server did not record a punch, in the worker's words. `t` is bound to the `worker`
 * namespace; `time` formats an ISO time for the worker.
 */
export function punchRefusal(err: unknown, t: TFunction, time: (iso: string) => string): string {
  if (!isRefusal(err)) return t('refusal.other', { message: err instanceof Error ? err.message : String(err) });
  const d = err.details;
  switch (err.code) {
    case 'OUTSIDE_GEOFENCE': return t('refusal.outside', { distance: typeof d.distanceMetres === 'number' ? Math.max(1, Math.round(d.distanceMetres)) : '?' });
    case 'QR_CODE_INACTIVE': return t('refusal.qrInactive');
    case 'PUNCH_TOO_SOON': return tooSoon(d, t);
    case 'DUPLICATE_EVENT': return t(d.currentState === 'clock_out' ? 'refusal.already_clock_out' : 'refusal.already_clock_in');
    case 'DEVICE_NOT_AUTHORIZED': return t('refusal.device');
    case 'RATE_LIMITED': return t('refusal.limited', { seconds: err.retryAfter ?? 60 });
    case 'GEOFENCE_NOT_CONFIGURED': return t('refusal.noFence');
    case 'LATER_EVENT_RECORDED': return t('refusal.later', { time: typeof d.latestEventAt === 'string' ? time(d.latestEventAt) : '?' });
    case 'ACCOUNT_DISABLED': return t('refusal.disabled');
    case 'VALIDATION_ERROR':
      if (d.field === 'capturedAt') return t(d.reason === 'in the future' ? 'refusal.future' : 'refusal.tooOld');
      return t('refusal.other', { message: err.message });
    default:
      return err.status === 429 ? t('refusal.limited', { seconds: err.retryAfter ?? 60 }) : t('refusal.other', { message: err.message || err.code });
  }
}
