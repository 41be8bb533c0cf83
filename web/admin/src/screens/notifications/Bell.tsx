// The bell in the header: the unread count, updated live over the WebSocket (live.ts; polled
// every 30 s while the socket is down), a toast for each new notification, and a dropdown of
// the latest ones with "mark read" and "mark all read".
import { BellOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Badge, Button, List, Popover, Space, Tooltip, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client.ts';
import { useAuth } from '../../auth/auth.tsx';
import { addStrings } from '../../i18n/index.ts';
import { DownloadLink } from './DownloadLink.tsx';
import { connectLive, type LiveState } from './live.ts';
import { strings } from './strings.ts';
import { useChange } from '../../../../shared/antd/useChange.ts';

addStrings('notifications', strings);

const LATEST = ['notifications', 'bell'] as const;
const loadLatest = () => unwrap(api.GET('/api/admin/notifications', { params: { query: { page: 1, page_size: 6, order_by: 'id:desc' } } }));
type Latest = Awaited<ReturnType<typeof loadLatest>>;

const hasPath = (nodes: { path?: string | null; children: unknown[] }[], path: string): boolean =>
  nodes.some((n) => n.path === path || hasPath(n.children as typeof nodes, path));

export function NotificationBell() {
  const { t, i18n } = useTranslation(['notifications', 'common']);
  const { session, profile } = useAuth();
  const { notification } = App.useApp();
  const queryClient = useQueryClient();
  const { change } = useChange(['notifications']);
  const [state, setState] = useState<LiveState>('connecting');
  const [open, setOpen] = useState(false);
  const latest = useQuery({ queryKey: LATEST, queryFn: loadLatest, enabled: session !== null });
  const unread = latest.data?.unread ?? 0;

  const signedIn = session !== null;
  // The server writes a socket's notifications in the language of the ticket request: a new
  // language opens a new socket.
  const language = i18n.language;
  useEffect(() => {
    if (!signedIn) return;
    return connectLive({
      onState: setState,
      onPoll: () => void queryClient.invalidateQueries({ queryKey: ['notifications'] }),
      onPermissionsChanged: () => void queryClient.invalidateQueries({ queryKey: ['profile'] }),
      onNotification: (n) => {
        queryClient.setQueryData<Latest>(LATEST, (d) => d && {
          ...d,
          unread: d.unread + 1,
          total: d.total + 1,
          list: [{ ...n, is_read: false, read_at: null }, ...d.list.filter((x) => x.id !== n.id)].slice(0, d.page_size),
        });
        // On a phone a toast at the bottom would cover the dialog that is open (the import's).
        const placement = window.matchMedia('(min-width: 768px)').matches ? 'bottomRight' : 'top';
        const from = n.sender_name && <Typography.Text type="secondary" style={{ display: 'block' }}>{t('from', { name: n.sender_name })}</Typography.Text>;
        // A message with its sender and content takes longer to read than antd's 4.5 s; hovering keeps it open.
        notification.info({ message: n.title, description: <>{from}{n.content}<DownloadLink n={n} /></>, placement, duration: 10 });
        // The list screen and the exact count follow.
        void queryClient.invalidateQueries({ queryKey: ['notifications', 'list'] });
      },
    });
    // One connection while signed in (a refreshed token keeps the same session).
  }, [signedIn, language, queryClient, notification]);

  const markRead = (id: number) => void change(() => unwrap(api.PUT('/api/admin/notifications/{id}/read', { params: { path: { id } } })), t('common:state.done'));
  const markAll = () => void change(() => unwrap(api.PUT('/api/admin/notifications/read-all')), t('common:state.done'));

  const content = (
    <div style={{ width: 360 }}>
      <List
        size="small"
        loading={latest.isLoading}
        dataSource={latest.data?.list ?? []}
        locale={{ emptyText: t('none') }}
        renderItem={(n) => (
          <List.Item
            actions={n.is_read ? [] : [<Button key="read" type="link" size="small" aria-label={`${t('read')}: ${n.title}`} onClick={() => markRead(n.id)}>{t('read')}</Button>]}
          >
            <List.Item.Meta
              title={<Typography.Text strong={!n.is_read}>{n.title}</Typography.Text>}
              description={(
                <>
                  <Typography.Paragraph ellipsis={{ rows: 2 }} style={{ marginBottom: 0 }}>{n.content}</Typography.Paragraph>
                  <DownloadLink n={n} />
                  <Typography.Text type="secondary">
                    {n.sender_name && `${t('from', { name: n.sender_name })} · `}{dayjs(n.created_at).format('YYYY-MM-DD HH:mm')}
                  </Typography.Text>
                </>
              )}
            />
          </List.Item>
        )}
      />
      {state === 'down' && <Typography.Text type="warning">{t('offline')}</Typography.Text>}
      <Space style={{ display: 'flex', justifyContent: 'space-between', marginTop: 8 }}>
        <Button size="small" disabled={unread === 0} onClick={markAll}>{t('readAll')}</Button>
        {hasPath(profile?.menus ?? [], '/notifications') && <Link to="/notifications" onClick={() => setOpen(false)}>{t('viewAll')}</Link>}
      </Space>
    </div>
  );

  return (
    <Popover trigger="click" placement="bottomRight" title={t('latest')} content={content} open={open} onOpenChange={setOpen}>
      <Tooltip title={t('common:layout.notifications')} open={open ? false : undefined}>
        <Badge count={unread} size="small" overflowCount={99}>
          <Button type="text" icon={<BellOutlined />} aria-label={t('bell', { count: unread })} data-live={state} />
        </Badge>
      </Tooltip>
    </Popover>
  );
}
