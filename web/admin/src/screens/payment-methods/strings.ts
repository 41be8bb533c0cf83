export const strings = {
  'en-US': {
    name: 'Name', code: 'Code', type: 'Type', active: 'Active', inactive: 'Inactive', isActive: 'Active', config: 'Configuration',
    createTitle: 'New payment method', editTitle: 'Edit {{name}}', asRows: 'Key / value', asJson: 'JSON', configMode: 'Edit the configuration as',
    key: 'Key', value: 'Value', addKey: 'Add a key', removeKey: 'Remove key {{n}}', keyN: 'Key {{n}}', valueN: 'Value {{n}}',
    jsonValue: 'JSON value', masked: 'Secret', maskedHint: 'Stored secret (******): kept unless you type a new value',
    secretHint: 'Values under secret-looking keys (key, secret, password, token…) are masked as ****** once saved; leaving ****** keeps the stored value.',
    duplicateKey: 'The key "{{key}}" appears twice', badJson: 'The value of "{{key}}" is not valid JSON', notObject: 'The configuration must be a JSON object',
    nameRule: '1 to 64 characters, not blank', codeRule: '1 to 64 letters, digits, _ . : -, starting with a letter or digit',
    typeRule: '1 to 32 letters, digits, _ . : -, starting with a letter or digit', sortRule: 'An integer 0 … 1000000', descriptionRule: 'At most 500 characters',
    keys: '{{count}} keys', jsonLabel: 'Configuration as JSON', typeExamples: 'online, offline, card, wallet…',
  },
  'zh-CN': {
    name: '名称', code: '编码', type: '类型', active: '启用', inactive: '停用', isActive: '启用', config: '配置',
    createTitle: '新建支付方式', editTitle: '编辑 {{name}}', asRows: '键值对', asJson: 'JSON', configMode: '配置编辑方式',
    key: '键', value: '值', addKey: '添加键', removeKey: '删除第 {{n}} 个键', keyN: '键 {{n}}', valueN: '值 {{n}}',
    jsonValue: 'JSON 值', masked: '密钥', maskedHint: '已保存的密钥（******）：不输入新值则保持不变',
    secretHint: '键名像密钥的值（key、secret、password、token 等）保存后显示为 ******；保留 ****** 即保持原值。',
    duplicateKey: '键“{{key}}”重复', badJson: '“{{key}}”的值不是有效的 JSON', notObject: '配置必须是 JSON 对象',
    nameRule: '1 至 64 个字符，不能全为空白', codeRule: '1 至 64 个字母、数字或 _ . : -，以字母或数字开头',
    typeRule: '1 至 32 个字母、数字或 _ . : -，以字母或数字开头', sortRule: '0 至 1000000 的整数', descriptionRule: '最多 500 个字符',
    keys: '{{count}} 个键', jsonLabel: '配置（JSON）', typeExamples: 'online、offline、card、wallet 等',
  },
};
