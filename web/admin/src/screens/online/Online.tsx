// Online administrators: the live sessions (fuzzy username and IP filters in the URL), the
// caller's own marked; kick out one, or the selected ones together (the reply says which were
// ended and which were no longer live). Protected sessions are refused by the server, whose
// message is shown.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Form, Input, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { messageOf } from '../../../../shared/feedback.ts';
import { QueryError, useAction } from '../../../../shared/antd/feedback.tsx';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type listOnline, onlineQuery } from './query.ts';
import { useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('online', {
  'en-US': {
    username: 'Username', ip: 'IP', userAgent: 'Browser', loginAt: 'Signed in', lastActive: 'Last active', expiresAt: 'Expires',
    current: 'This session', kick: 'Kick out', kickSelected: 'Kick out selected', confirmKick: 'End the session of {{name}}?',
    confirmKickMany: 'End {{count}} selected sessions?', kicked: 'Session ended', kickedMany: '{{kicked}} ended, {{missing}} no longer online',
    selected: '{{count}} selected',
  },
  'zh-CN': {
    username: '用户名', ip: 'IP', userAgent: '浏览器', loginAt: '登录时间', lastActive: '最后活动', expiresAt: '过期时间',
    current: '当前会话', kick: '强制下线', kickSelected: '批量下线', confirmKick: '确定结束 {{name}} 的会话？',
    confirmKickMany: '确定结束选中的 {{count}} 个会话？', kicked: '会话已结束', kickedMany: '已下线 {{kicked}} 个，{{missing}} 个已不在线',
    selected: '已选 {{count}} 项',
  },
});

type Session = Awaited<ReturnType<typeof listOnline>>['list'][number];

export default function Online() {
  const { t } = useTranslation(['online', 'common']);
  const table = useListTable();
  const { can } = useAuth();
  const run = useAction();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const { params, setFilters, pagination } = useListParams<QueryOfList<typeof onlineQuery>>();
  const [selected, setSelected] = useState<number[]>([]);
  const f = params.filters;
  const list = useQuery({ ...onlineQuery(params), placeholderData: keepPreviousData });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['online'] });
  const mayKick = can('online.kick');

  const kick = (s: Session) =>
    void run(() => unwrap(api.DELETE('/api/admin/online-admins/{token_id}', { params: { path: { token_id: s.token_id } } })), t('kicked')).then((ok) => {
      if (ok) setSelected((ids) => ids.filter((id) => id !== s.token_id));
      refresh();
    });
  const kickSelected = async () => {
    try {
      const reply = await unwrap(api.POST('/api/admin/online-admins/batch-kick-out', { body: { token_ids: selected } }));
      void message.success(t('kickedMany', { kicked: reply.kicked.length, missing: reply.not_found.length }));
      setSelected([]);
    } catch (err) {
      void message.error(messageOf(err, t));
    }
    refresh();
  };

  return (
    <Card>
      <Form
        className="list-filters"
        layout="inline"
        key={JSON.stringify(f)}
        initialValues={f}
        onFinish={(v: { username?: string; ip?: string }) => setFilters({ username: v.username?.trim(), ip: v.ip?.trim() })}
      >
        <Form.Item name="username" label={t('username')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <Form.Item name="ip" label={t('ip')} rules={[{ max: 64 }]}><Input allowClear /></Form.Item>
        <FilterButtons onReset={() => setFilters({})} />
      </Form>
      <div className="list-toolbar">
        <Space>
          {mayKick && (
            <Popconfirm title={t('confirmKickMany', { count: selected.length })} onConfirm={() => void kickSelected()} disabled={selected.length === 0}>
              <Button danger disabled={selected.length === 0}>{t('kickSelected')}</Button>
            </Popconfirm>
          )}
          {selected.length > 0 && <Typography.Text type="secondary">{t('selected', { count: selected.length })}</Typography.Text>}
        </Space>
        <Button onClick={refresh}>{t('common:action.refresh')}</Button>
      </div>
      {list.error ? <QueryError error={list.error} onRetry={() => void list.refetch()} /> : (
        <Table<Session>
          rowKey="token_id"
          loading={list.isFetching}
          dataSource={list.data?.list ?? []}
          locale={{ emptyText: Object.keys(f).length > 0 ? t('common:state.emptyFiltered') : t('common:state.empty') }}
          rowSelection={mayKick ? {
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys as number[]),
            getCheckboxProps: (s) => ({ disabled: s.is_current, 'aria-label': `${t('username')} ${s.username} #${s.token_id}` }),
          } : undefined}
          pagination={pagination(list.data?.total ?? 0)}
          {...table<Session>([
            { title: t('common:field.id'), dataIndex: 'token_id', width: 80 },
            {
              title: t('username'), dataIndex: 'username', width: 260,
              render: (v: string, s) => (
                <Space>
                  <span>{v}{s.nickname && s.nickname !== v ? <Typography.Text type="secondary"> ({s.nickname})</Typography.Text> : null}</span>
                  {s.is_current && <Tag color="blue">{t('current')}</Tag>}
                </Space>
              ),
            },
            { title: t('ip'), dataIndex: 'ip', width: 150 },
            { detail: true, title: t('userAgent'), dataIndex: 'user_agent', width: 220, ellipsis: true, render: (v: string) => v || '—' },
            { title: t('loginAt'), dataIndex: 'login_at', width: 170 },
            { title: t('lastActive'), dataIndex: 'last_active_at', width: 170 },
            { detail: true, title: t('expiresAt'), dataIndex: 'expires_at', width: 170 },
            {
              title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 110,
              render: (_: unknown, s) => mayKick && !s.is_current && (
                <Popconfirm title={t('confirmKick', { name: s.username })} onConfirm={() => kick(s)}>
                  <Button type="link" size="small" danger aria-label={`${t('kick')} ${s.username} #${s.token_id}`}>{t('kick')}</Button>
                </Popconfirm>
              ),
            },
          ])}
        />
      )}
    </Card>
  );
}
