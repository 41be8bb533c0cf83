export const strings = {
  'en-US': {
    name: 'Role name', slug: 'Slug', description: 'Description', permissions: 'Permissions', menus: 'Menus', details: 'Details',
    superAdmin: 'Super administrator', createTitle: 'New role', editTitle: 'Edit {{name}}', grants: 'Permissions',
    permissionCount: '{{count}} permissions', menuCount: '{{count}} menus', chosen: '{{count}} chosen', all: 'Choose all', none: 'Clear',
    expandAll: 'Expand all', collapseAll: 'Collapse all', permissionTree: 'Permission tree', menuTree: 'Menu tree',
    superHint: 'The super administrator passes every permission check and sees every menu. Its slug and status cannot change, and it cannot be deleted.',
    menuHint: 'Ticking a menu ticks its parents (needed to reach it) and everything under it.',
    permissionHint: 'Grouped by module (the part of the slug before the first dot). Disabled permissions grant nothing.',
    nameRule: '1 to 64 characters, not blank', slugRule: '1 to 64 lower case letters, digits, "_" or "-", starting with a letter',
    sortRule: 'A whole number from -1000000 to 1000000', disabledTag: 'disabled',
  },
  'zh-CN': {
    name: '角色名称', slug: '标识', description: '描述', permissions: '权限', menus: '菜单', details: '基本信息',
    superAdmin: '超级管理员', createTitle: '新建角色', editTitle: '编辑 {{name}}', grants: '分配权限',
    permissionCount: '{{count}} 项权限', menuCount: '{{count}} 个菜单', chosen: '已选 {{count}} 项', all: '全选', none: '清空',
    expandAll: '全部展开', collapseAll: '全部折叠', permissionTree: '权限树', menuTree: '菜单树',
    superHint: '超级管理员通过所有权限检查，可见全部菜单。其标识和状态不可修改，且不能删除。',
    menuHint: '勾选菜单时会同时勾选其上级（访问所需）及其所有下级。',
    permissionHint: '按模块分组（标识中第一个点之前的部分）。已停用的权限不授予任何访问。',
    nameRule: '1 至 64 个字符，不能为空白', slugRule: '1 至 64 个小写字母、数字、"_" 或 "-"，以字母开头',
    sortRule: '-1000000 至 1000000 之间的整数', disabledTag: '已停用',
  },
};
