export const strings = {
  'en-US': {
    departments: 'Departments', username: 'Username', nickname: 'Nickname', email: 'E-mail', phone: 'Phone', department: 'Department',
    roles: 'Roles', rolesAndScope: 'Roles and data scope', twoFactor: 'Two-step', bound: 'On', notBound: 'Off', lastLogin: 'Last sign-in', protected: 'Protected',
    password: 'Password', newPassword: 'New password', resetPassword: 'Reset password', unbind: 'Remove authenticator',
    createTitle: 'New administrator', editTitle: 'Edit {{name}}', resetTitle: 'New password for {{name}}',
    resetHint: 'Their sessions end at once, and they are notified.', unbindTitle: 'Remove the authenticator of {{name}}',
    unbindHint: 'Enter the current code of your own authenticator to confirm.', yourCode: 'Your authenticator code',
    usernameRule: '3 to 64 letters, digits, ".", "_" or "-"', passwordRule: '8 to 128 characters', emailRule: 'An e-mail address',
    phoneRule: 'Digits, spaces, +, - and parentheses', codeRule: 'Six digits',
    scopeHint: 'What they reach now, from their enabled roles and their department: a change of roles or department applies once saved.',
  },
  'zh-CN': {
    departments: '部门', username: '用户名', nickname: '昵称', email: '邮箱', phone: '电话', department: '部门',
    roles: '角色', rolesAndScope: '角色与数据范围', twoFactor: '两步验证', bound: '已开启', notBound: '未开启', lastLogin: '最后登录', protected: '受保护',
    password: '密码', newPassword: '新密码', resetPassword: '重置密码', unbind: '解绑验证器',
    createTitle: '新建管理员', editTitle: '编辑 {{name}}', resetTitle: '为 {{name}} 设置新密码',
    resetHint: '其所有会话将立即结束，并会收到通知。', unbindTitle: '解绑 {{name}} 的验证器',
    unbindHint: '请输入您本人验证器的当前验证码以确认。', yourCode: '您的验证码',
    usernameRule: '3 至 64 个字母、数字、"."、"_" 或 "-"', passwordRule: '8 至 128 个字符', emailRule: '请输入邮箱地址',
    phoneRule: '数字、空格、+、- 和括号', codeRule: '6 位数字',
    scopeHint: '当前可访问的数据，由其已启用的角色和所属部门决定：修改角色或部门后保存即生效。',
  },
};
