export const strings = {
  'en-US': {
    types: 'Dictionary types', items: 'Items of {{name}}', noType: 'Choose a dictionary type on the left to see its items.',
    code: 'Code', value: 'Value', name: 'Name', newType: 'New type', newItem: 'New item', createType: 'New dictionary type',
    createItem: 'New item of {{name}}', editTitle: 'Edit {{name}}', codeRule: '1 to 64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit',
    codeHelp: 'Unique (ignoring case) among the types, or among the items of one type.', nameRule: '1 to 64 characters, not blank',
    sortRule: '0 to 1,000,000', typeOf: 'Type', searchTypes: 'Search types', editType: 'Edit type {{name}}', deleteType: 'Delete type {{name}}',
    typeHasItems: 'A type is deleted only once it has no items.',
  },
  'zh-CN': {
    types: '字典类型', items: '{{name}} 的字典项', noType: '请在左侧选择一个字典类型以查看其字典项。',
    code: '编码', value: '值', name: '名称', newType: '新建类型', newItem: '新建字典项', createType: '新建字典类型',
    createItem: '新建 {{name}} 的字典项', editTitle: '编辑 {{name}}', codeRule: '1 至 64 个字母、数字、"_"、"."、":" 或 "-"，以字母或数字开头',
    codeHelp: '在字典类型之间、或同一类型的字典项之间唯一（不区分大小写）。', nameRule: '1 至 64 个字符，不能全为空白',
    sortRule: '0 至 1,000,000', typeOf: '类型', searchTypes: '搜索类型', editType: '编辑类型 {{name}}', deleteType: '删除类型 {{name}}',
    typeHasItems: '只有没有字典项的类型才能删除。',
  },
};
