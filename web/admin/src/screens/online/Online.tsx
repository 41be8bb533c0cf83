// Online administrators: the live sessions (fuzzy username and IP filters in the URL), the
// caller's own marked; kick out one, or the selected ones together (the reply says which were
// ended and which were no longer live). Protected sessions are refused by the server, whose
// message is shown.
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Popconfirm, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAction } from '../../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { SelectionAction } from '../../../../shared/antd/SelectionAction.tsx';
import { messageOf } from '../../../../shared/feedback.ts';
import type { PageOf } from '../../../../shared/list/params.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { onlineQuery } from './query.ts';

addStrings('online', {
  'en-US': {
    username: 'Username', ip: 'IP', userAgent: 'Browser', loginAt: 'Signed in', lastActive: 'Last active', expiresAt: 'Expires',
    current: 'This session', kick: 'Kick out', kickSelected: 'Kick out selected', confirmKick: 'End the session of {{name}}?',
    confirmKickMany: 'End {{count}} selected sessions?', kicked: 'Session ended', kickedMany: '{{kicked}} ended, {{missing}} no longer online',
  },
  'zh-CN': {
    username: '用户名', ip: 'IP', userAgent: '浏览器', loginAt: '登录时间', lastActive: '最后活动', expiresAt: '过期时间',
    current: '当前会话', kick: '强制下线', kickSelected: '批量下线', confirmKick: '确定结束 {{name}} 的会话？',
    confirmKickMany: '确定结束选中的 {{count}} 个会话？', kicked: '会话已结束', kickedMany: '已下线 {{kicked}} 个，{{missing}} 个已不在线',
  },
});

type Session = PageOf<typeof onlineQuery>['list'][number];

export default function Online() {
  const { t } = useTranslation(['online', 'common']);
  const { can } = useAuth();
  const run = useAction();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const list = useList(onlineQuery);
  const [selected, setSelected] = useState<number[]>([]);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: onlineQuery.key });
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

  const columns: Column<Session, ListQuery<'/api/admin/online-admins'>>[] = [
    { title: t('common:field.id'), dataIndex: 'token_id', width: 80 },
    {
      title: t('username'), dataIndex: 'username', width: 260, filter: { kind: 'text', key: 'username', max: 64 },
      render: (v: string, s) => (
        <Space>
          <span>{v}{s.nickname && s.nickname !== v ? <Typography.Text type="secondary"> ({s.nickname})</Typography.Text> : null}</span>
          {s.is_current && <Tag color="blue">{t('current')}</Tag>}
        </Space>
      ),
    },
    { title: t('ip'), dataIndex: 'ip', width: 150, filter: { kind: 'text', key: 'ip', max: 64 } },
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
  ];

  return (
    <Card>
      <ListView
        list={list}
        columns={columns}
        toolbar={(
          <>
            {mayKick ? (
              <SelectionAction count={selected.length} label={t('kickSelected')} confirm={t('confirmKickMany', { count: selected.length })} onConfirm={() => void kickSelected()} />
            ) : <span />}
            <Button onClick={refresh}>{t('common:action.refresh')}</Button>
          </>
        )}
        table={{
          rowKey: 'token_id',
          rowSelection: mayKick ? {
            selectedRowKeys: selected,
            onChange: (keys) => setSelected(keys as number[]),
            getCheckboxProps: (s) => ({ disabled: s.is_current, 'aria-label': `${t('username')} ${s.username} #${s.token_id}` }),
          } : undefined,
        }}
      />
    </Card>
  );
}
