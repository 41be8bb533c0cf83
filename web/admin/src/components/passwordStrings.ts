// Words of the change of one's own password (components/ChangePassword.tsx), on the profile and in
// the step after sign-in when someone else set the password or it expired.
export const strings = {
  'en-US': {
    oldPassword: 'Current password', newPassword: 'New password', confirmPassword: 'Confirm the new password',
    required: 'Required', mismatch: 'The two passwords differ', sameAsOld: 'The new password must differ from the current one',
    tooShort: 'At least {{count}} characters', submit: 'Change password', changed: 'Password changed',
    rulesTitle: 'The new password needs:',
    ruleLength: 'at least {{count}} characters',
    ruleClasses: 'at least {{count}} of these 4 kinds of characters: lower-case letters, upper-case letters, digits, others (symbols, spaces)',
    ruleCommon: 'not to be one of the 10,000 most common passwords',
    ruleUsername: 'not to contain your username',
    ruleHistory: 'to differ from your last {{count}} passwords',
    ruleCurrent: 'to differ from your current password',
    ruleAge: 'It lasts {{count}} days; then signing in asks for a new one.',
  },
  'zh-CN': {
    oldPassword: '当前密码', newPassword: '新密码', confirmPassword: '确认新密码',
    required: '必填', mismatch: '两次输入的密码不一致', sameAsOld: '新密码不能与当前密码相同',
    tooShort: '至少 {{count}} 个字符', submit: '修改密码', changed: '密码已修改',
    rulesTitle: '新密码须满足：',
    ruleLength: '至少 {{count}} 个字符',
    ruleClasses: '包含以下 4 类字符中的至少 {{count}} 类：小写字母、大写字母、数字、其他字符（符号、空格）',
    ruleCommon: '不是最常用的 10,000 个密码之一',
    ruleUsername: '不包含你的用户名',
    ruleHistory: '与你最近 {{count}} 次使用的密码都不同',
    ruleCurrent: '与当前密码不同',
    ruleAge: '密码有效期为 {{count}} 天，到期后登录时需设置新密码。',
  },
};
