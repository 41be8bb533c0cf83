export const strings = {
  'en-US': {
    name: 'Department', leader: 'Leader', phone: 'Phone', email: 'E-mail', parent: 'Parent department', createTitle: 'New department', createChildTitle: 'New department under {{name}}', editTitle: 'Edit {{name}}',
    nameRule: '1 to 64 characters, not blank', emailRule: 'An e-mail address, or empty', sortRule: 'A whole number',
    deleteHint: 'A department with child departments or administrators cannot be deleted.',
  },
  'zh-CN': {
    name: '部门名称', leader: '负责人', phone: '电话', email: '邮箱', parent: '上级部门', createTitle: '新建部门', createChildTitle: '在 {{name}} 下新建部门', editTitle: '编辑 {{name}}',
    nameRule: '1 至 64 个字符，不能为空白', emailRule: '请输入邮箱地址，或留空', sortRule: '请输入整数',
    deleteHint: '有下级部门或成员的部门不能删除。',
  },
};
