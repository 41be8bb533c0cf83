// Words of the authenticator's set-up and of its recovery codes (components/AuthenticatorSetup.tsx,
// components/RecoveryCodes.tsx), shown on the profile and in the binding step after sign-in.
export const strings = {
  'en-US': {
    setUp: 'Set up an authenticator', scan: 'Scan this code with the app, or enter the secret by hand, then type the code it shows.',
    secret: 'Secret', secretLabel: 'Secret:', qrAlt: 'QR code of the authenticator secret', code: 'Authenticator code', codeRule: 'Six digits', bind: 'Turn on',
    codesTitle: 'Your recovery codes',
    codesWarning: 'Save these codes now: they are not shown again.',
    codesHelp: 'If your authenticator app is out of reach, each code signs you in once in place of the 6-digit code. Keep them somewhere safe, away from this device.',
    codesList: 'Recovery codes',
    download: 'Download', print: 'Print', copy: 'Copy', copied: 'Copied',
    saved: 'I have saved these codes somewhere safe',
    fileTitle: 'Back office recovery codes', fileFor: 'Account: {{username}}', fileMade: 'Made: {{time}}',
    fileHelp: 'Each code works once, in place of the 6-digit authenticator code. Making new codes voids these.',
  },
  'zh-CN': {
    setUp: '绑定身份验证器', scan: '用应用扫描此二维码，或手动输入密钥，然后填写应用显示的验证码。',
    secret: '密钥', secretLabel: '密钥：', qrAlt: '身份验证器密钥的二维码', code: '验证码', codeRule: '6 位数字', bind: '开启',
    codesTitle: '你的恢复码',
    codesWarning: '请立即保存这些恢复码：它们不会再次显示。',
    codesHelp: '身份验证器应用不在身边时，每个恢复码可代替 6 位验证码登录一次。请妥善保存，不要与本设备放在一起。',
    codesList: '恢复码',
    download: '下载', print: '打印', copy: '复制', copied: '已复制',
    saved: '我已妥善保存这些恢复码',
    fileTitle: '后台管理恢复码', fileFor: '账号：{{username}}', fileMade: '生成时间：{{time}}',
    fileHelp: '每个恢复码只能使用一次，可代替 6 位身份验证器验证码。重新生成后，这些恢复码即失效。',
  },
};
