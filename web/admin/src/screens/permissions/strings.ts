export const strings = {
  'en-US': {
    name: 'Name', slug: 'Slug', method: 'Method', path: 'Path', menu: 'Menu', kind: 'Kind', system: 'System', custom: 'Custom', none: 'None',
    createTitle: 'New permission', editTitle: 'Edit {{name}}', anyMethod: 'None',
    nameRule: '1 to 128 characters, not blank', slugRule: '<module>.<action>: lower case letters, digits, "_" and "-", 3 to 128 characters',
    pathRule: 'Empty, or starts with /', systemHint: 'Generated from the server’s routes: the slug, method and path are fixed; the name, menu and status can change.',
  },
  'zh-CN': {
    name: '名称', slug: '标识', method: '请求方法', path: '路径', menu: '所属菜单', kind: '类型', system: '系统', custom: '自定义', none: '无',
    createTitle: '新建权限', editTitle: '编辑 {{name}}', anyMethod: '无',
    nameRule: '1 至 128 个字符，不能为空白', slugRule: '<模块>.<操作>：小写字母、数字、"_" 和 "-"，3 至 128 个字符',
    pathRule: '留空，或以 / 开头', systemHint: '由服务端路由生成：标识、请求方法和路径不可修改；名称、所属菜单和状态可以修改。',
  },
};
