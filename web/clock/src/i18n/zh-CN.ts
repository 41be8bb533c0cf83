export default {
  app: { title: '考勤打卡', manager: '考勤打卡 — 管理端' },
  action: { signIn: '登录', signOut: '退出登录', retry: '重试', close: '关闭', language: 'EN' },
  signIn: {
    title: '登录', username: '用户名', password: '密码', required: '必填',
    deviceBound: '此账号已绑定另一部手机。请联系主管重置设备绑定后，再在本机登录。',
    invalid: '用户名或密码错误。',
    disabled: '此账号已停用，请联系主管。',
    limited: '尝试次数过多，请 {{seconds}} 秒后再试。',
    device: '本机标识：{{id}}',
  },
  session: {
    expired: '登录已过期，请重新登录。',
    revoked: '登录已失效，请重新登录。',
    'signed-out': '已退出登录。',
  },
  error: {
    network: '无法连接服务器，请检查网络后重试。',
    unavailable: '服务暂时不可用，请稍后再试。',
    unknown: '出现错误（{{code}}）。',
  },
  offline: '离线',
};
