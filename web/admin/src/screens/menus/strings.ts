export const strings = {
  'en-US': {
    title: 'Title', slug: 'Slug', icon: 'Icon', path: 'Path', component: 'Component', type: 'Type', parent: 'Parent menu',
    directory: 'Directory', menu: 'Menu', button: 'Button',
    createTitle: 'New menu', createChildTitle: 'New menu under {{name}}', editTitle: 'Edit {{name}}',
    titleRule: '1 to 64 characters, not blank', slugRule: '1 to 64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit',
    sortRule: 'A whole number', deleteHint: 'A menu that still has children cannot be deleted.',
    pathHint: 'The address in the console, for example /system/roles',
    componentHint: 'The screen a menu opens, for example system/role/index; "Layout" for a directory',
  },
  'zh-CN': {
    title: '菜单名称', slug: '标识', icon: '图标', path: '路由地址', component: '组件', type: '类型', parent: '上级菜单',
    directory: '目录', menu: '菜单', button: '按钮',
    createTitle: '新建菜单', createChildTitle: '在 {{name}} 下新建菜单', editTitle: '编辑 {{name}}',
    titleRule: '1 至 64 个字符，不能为空白', slugRule: '1 至 64 个字母、数字、"_"、"."、":" 或 "-"，以字母或数字开头',
    sortRule: '请输入整数', deleteHint: '仍有下级菜单的菜单不能删除。',
    pathHint: '控制台中的地址，例如 /system/roles',
    componentHint: '菜单打开的页面，例如 system/role/index；目录填 "Layout"',
  },
};
