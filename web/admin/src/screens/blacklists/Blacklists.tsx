// IP blacklist: the rules (fuzzy IP and status filters in the URL), create and edit (an address,
// a CIDR block or a range, IPv4 or IPv6, checked in the form; the server's refusals — a duplicate,
// a rule that would block one's own address — shown next to the field), enable/disable, delete,
// and delete the selected rules together (the reply says which were deleted and which were gone).
import { PlusOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { App, Button, Card, Form, Input, Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { FormModal } from '../../../../shared/antd/FormModal.tsx';
import { SelectionAction } from '../../../../shared/antd/SelectionAction.tsx';
import { switchOneZero, useSave } from '../../../../shared/antd/useSave.ts';
import { messageOf } from '../../../../shared/feedback.ts';
import type { PageOf } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap, type Body, type ListQuery } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { isRule } from './ip.ts';
import { blacklistsQuery } from './query.ts';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('blacklists', {
  'en-US': {
    ip: 'IP rule', remark: 'Remark', active: 'Active', inactive: 'Inactive', createTitle: 'New rule', editTitle: 'Edit rule {{ip}}',
    ipRule: 'An IPv4 or IPv6 address, a CIDR block (203.0.113.0/24, 2001:db8::/32) or a range (198.51.100.10-198.51.100.20)',
    ipHelp: 'Active rules refuse every request from the addresses they cover, sign-in included.',
    deletedMany: '{{deleted}} deleted, {{missing}} already gone',
  },
  'zh-CN': {
    ip: 'IP 规则', remark: '备注', active: '生效', inactive: '停用', createTitle: '新建规则', editTitle: '编辑规则 {{ip}}',
    ipRule: 'IPv4 或 IPv6 地址、CIDR 网段（203.0.113.0/24、2001:db8::/32）或地址范围（198.51.100.10-198.51.100.20）',
    ipHelp: '生效的规则会拒绝其覆盖地址的所有请求，包括登录。',
    deletedMany: '已删除 {{deleted}} 条，{{missing}} 条已不存在',
  },
});

type Rule = PageOf<typeof blacklistsQuery>['list'][number];
type Values = Body<'/api/admin/blacklists', 'post'>;

export default function Blacklists() {
  const { t } = useTranslation(['blacklists', 'common']);
  const { can } = useAuth();
  const { change, refresh } = useChange(blacklistsQuery.key);
  const { message } = App.useApp();
  const list = useList(blacklistsQuery);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [selected, setSelected] = useState<number[]>([]);

  const setStatus = (r: Rule, status: 0 | 1) =>
    void change(() => unwrap(api.PUT('/api/admin/blacklists/{id}', { params: { path: { id: r.id } }, body: { status } })), t('common:state.saved'));
  const remove = (r: Rule) =>
    void change(() => unwrap(api.DELETE('/api/admin/blacklists/{id}', { params: { path: { id: r.id } } })), t('common:state.deleted')).then((ok) => {
      if (ok) setSelected((ids) => ids.filter((id) => id !== r.id));
    });
  const removeSelected = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/admin/blacklists/batch', { body: { ids: selected } })),
    onSuccess: (reply) => {
      void message.success(t('deletedMany', { deleted: reply.deleted, missing: reply.not_found.length }));
      setSelected([]);
    },
    onError: (err) => void message.error(messageOf(err, t)),
    onSettled: refresh,
  });

  const columns: Column<Rule, ListQuery<'/api/admin/blacklists'>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 80 },
    { title: t('ip'), dataIndex: 'ip', render: (v: string) => <Typography.Text code>{v}</Typography.Text>, filter: { kind: 'text', key: 'ip', max: 100 } },
    { title: t('remark'), dataIndex: 'remark', render: (v: string) => v || '—' },
    {
      title: t('common:field.status'), dataIndex: 'status', width: 110,
      filter: { kind: 'select', key: 'status', options: [{ value: 1, label: t('active') }, { value: 0, label: t('inactive') }] },
      render: (s: number, r) => (
        <Switch
          size="small"
          checked={s === 1}
          checkedChildren={t('active')}
          unCheckedChildren={t('inactive')}
          aria-label={`${t('common:field.status')} ${r.ip}`}
          disabled={!can('blacklist.update')}
          onChange={(on) => setStatus(r, on ? 1 : 0)}
        />
      ),
    },
    { title: t('common:field.createdAt'), dataIndex: 'created_at', width: 170 },
    { detail: true, title: t('common:field.updatedAt'), dataIndex: 'updated_at', width: 170 },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 150,
      render: (_: unknown, r) => (
        <RowActions name={r.ip} onEdit={can('blacklist.update') && (() => setEditing(r))} onDelete={can('blacklist.delete') && (() => remove(r))} />
      ),
    },
  ];

  return (
    <Card>
      <ListView
        list={list}
        columns={columns}
        toolbar={(
          <Space>
            {can('blacklist.create') && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')}>{t('common:action.create')}</Button>}
            {can('blacklist.delete') && (
              <SelectionAction
                count={selected.length}
                label={t('common:action.batchDelete')}
                confirm={t('common:state.confirmDeleteMany', { count: selected.length })}
                onConfirm={() => removeSelected.mutate()}
              />
            )}
          </Space>
        )}
        table={{
          rowSelection: can('blacklist.delete') ? {
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys as number[]),
            getCheckboxProps: (r) => ({ 'aria-label': `${t('ip')} ${r.ip}` }),
          } : undefined,
        }}
      />
      {editing && <RuleForm rule={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}

function RuleForm({ rule, onClose }: { rule: Rule | null; onClose: () => void }) {
  const { t } = useTranslation(['blacklists', 'common']);
  const [form] = Form.useForm<Values>();
  // Every refusal of a rule (its form, a duplicate, one's own address) is about the IP field,
  // unless the server names another one.
  const { submit, isPending } = useSave(form, {
    save: (v) => {
      const body = { ...v, ip: v.ip.trim(), remark: v.remark ?? '' };
      return rule ? unwrap(api.PUT('/api/admin/blacklists/{id}', { params: { path: { id: rule.id } }, body })) : unwrap(api.POST('/api/admin/blacklists', { body }));
    },
    fallback: 'ip',
    invalidates: [blacklistsQuery.key],
    onSaved: onClose,
  });
  return (
    <FormModal form={form} title={rule ? t('editTitle', { ip: rule.ip }) : t('createTitle')} pending={isPending} onClose={onClose}
      name="blacklist-rule"
      onFinish={submit}
      initialValues={rule ? { ip: rule.ip, remark: rule.remark, status: rule.status } : { status: 1 }}
    >
      <Form.Item
        name="ip"
        label={t('ip')}
        extra={t('ipHelp')}
        rules={[{ required: true, message: t('ipRule') }, { validator: (_, v: string | undefined) => (!v || isRule(v) ? Promise.resolve() : Promise.reject(new Error(t('ipRule')))) }]}
      >
        <Input autoComplete="off" placeholder="203.0.113.0/24" />
      </Form.Item>
      <Form.Item name="remark" label={t('remark')} rules={[{ max: 255 }]}><Input.TextArea rows={2} showCount maxLength={255} /></Form.Item>
      <Form.Item name="status" label={t('active')} {...switchOneZero}><Switch /></Form.Item>
    </FormModal>
  );
}
