// Files: upload one file (with a progress bar), or a large one in chunks (progress, pause,
// resume, and resume after a page reload by choosing the same file again), the list of every
// attachment for holders of attachment.view (on the list kit: filters in the URL), download,
// image preview, and delete for holders of attachment.delete (refused, in the reader's language,
// while an avatar or a payment method still uses the file).
import { CloudUploadOutlined, DownloadOutlined, EyeOutlined, PauseOutlined, CaretRightOutlined, UploadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Image, List, Modal, Progress, Space, Tag, Typography, Upload } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, download, unwrap, type ListQuery } from '../../api/client.ts';
import { apiErrorOf, networkError } from '../../api/errors.ts';
import { getSession } from '../../api/session.ts';
import { useAuth } from '../../auth/auth.tsx';
import { messageOf } from '../../../../shared/feedback.ts';
import { useAction } from '../../../../shared/antd/feedback.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import { RowActions } from '../../../../shared/antd/RowActions.tsx';
import { useChange } from '../../../../shared/antd/useChange.ts';
import { useList } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { attachmentsQuery } from './query.ts';
import { strings } from './strings.ts';
import { Aborted, ChunkedUpload, postForm, type Attachment } from './transfer.ts';
import { ACCEPT, chunkBytesFrom, CHUNKED_ABOVE_BYTES, forgetPending, formatBytes, loadPending, percent, typeOf, type PendingUpload } from './upload.ts';

addStrings('attachments', strings);

const downloadPath = (id: number) => `/api/admin/attachments/${id}/download`;

interface Transfer {
  name: string;
  sent: number;
  total: number;
  state: 'running' | 'paused' | 'failed';
  chunked: boolean;
  resumed: boolean;
}

export default function Attachments() {
  const { t } = useTranslation(['attachments', 'common']);
  const { can } = useAuth();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canView = can('attachment.view');
  const canUpload = can('attachment.upload');
  const [transfer, setTransfer] = useState<Transfer | null>(null);
  const [recent, setRecent] = useState<Attachment[]>([]);
  const [pending, setPending] = useState<PendingUpload[]>(() => loadPending(localStorage));
  const [previewing, setPreviewing] = useState<{ name: string; url: string } | null>(null);
  const chunked = useRef<ChunkedUpload | null>(null);
  const run = useAction();

  useEffect(() => () => chunked.current?.pause(), []);
  useEffect(() => () => { if (previewing) URL.revokeObjectURL(previewing.url); }, [previewing]);

  const finished = (a: Attachment) => {
    setTransfer(null);
    setRecent((r) => [a, ...r.filter((x) => x.id !== a.id)]);
    setPending(loadPending(localStorage));
    void message.success(t('uploaded', { name: a.original_name }));
    void queryClient.invalidateQueries({ queryKey: attachmentsQuery.key });
  };
  const failed = (err: unknown) => {
    setTransfer((tr) => (tr ? { ...tr, state: err instanceof Aborted ? 'paused' : 'failed' } : tr));
    setPending(loadPending(localStorage));
    if (!(err instanceof Aborted)) void message.error(messageOf(err, t));
  };

  const single = async (file: File) => {
    const type = typeOf(file.name)!;
    setTransfer({ name: file.name, sent: 0, total: file.size, state: 'running', chunked: false, resumed: false });
    const form = new FormData();
    form.append('type', type);
    form.append('file', file, file.name);
    try {
      finished(await postForm<Attachment>('/api/admin/attachments/upload', form, (sent) => setTransfer((tr) => tr && { ...tr, sent })));
    } catch (err) {
      failed(err);
    }
  };

  const continueChunked = async (job: ChunkedUpload) => {
    chunked.current = job;
    setTransfer((tr) => ({ name: job.file.name, sent: tr?.sent ?? 0, total: job.file.size, state: 'running', chunked: true, resumed: tr?.resumed ?? false }));
    try {
      const a = await job.run();
      chunked.current = null;
      finished(a);
    } catch (err) {
      failed(err);
    } finally {
      setPending(loadPending(localStorage));
    }
  };

  const startChunked = (file: File) => {
    const job = new ChunkedUpload(file, localStorage, chunkBytesFrom(localStorage), (p) => {
      setPending(loadPending(localStorage));
      setTransfer((tr) => tr && { ...tr, sent: p.sent, total: p.total, resumed: job.resumed });
    });
    setTransfer({ name: file.name, sent: 0, total: file.size, state: 'running', chunked: true, resumed: false });
    void continueChunked(job);
  };

  const pick = (file: File, mode: 'single' | 'chunked') => {
    if (!typeOf(file.name)) void message.error(t('unsupported', { name: file.name }));
    else if (transfer?.state === 'running') void message.warning(t('uploading', { name: transfer.name }));
    else if (mode === 'chunked' || file.size > CHUNKED_ABOVE_BYTES) startChunked(file);
    else void single(file);
    return Upload.LIST_IGNORE;
  };

  const preview = async (a: Attachment) => {
    const session = getSession();
    try {
      const res = await fetch(downloadPath(a.id), { headers: session ? { authorization: `Bearer ${session.token}` } : {} });
      if (!res.ok) throw apiErrorOf(res.status, await res.json().catch(() => null), res.headers.get('x-trace-id'));
      setPreviewing({ name: a.original_name, url: URL.createObjectURL(await res.blob()) });
    } catch (err) {
      void message.error(messageOf(err instanceof TypeError ? networkError(err) : err, t));
    }
  };

  /** A file's download and preview (images) links, in its list row and among this visit's uploads. */
  const links = (a: Attachment) => (
    <>
      <Button type="link" size="small" icon={<DownloadOutlined />} aria-label={`${t('common:action.download')} ${a.original_name}`}
        onClick={() => void run(() => download(downloadPath(a.id), a.original_name), t('common:state.done'))}>
        {t('common:action.download')}
      </Button>
      {a.type === 'image' && (
        <Button type="link" size="small" icon={<EyeOutlined />} aria-label={`${t('preview')} ${a.original_name}`} onClick={() => void preview(a)}>{t('preview')}</Button>
      )}
    </>
  );
  const typeLabel = (type: string) => <Tag color={type === 'image' ? 'blue' : type === 'video' ? 'purple' : 'default'}>{t(type)}</Tag>;

  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      {canUpload && (
        <Card title={t('upload')}>
          <Typography.Paragraph type="secondary">{t('uploadHint')}</Typography.Paragraph>
          <Space wrap>
            <Upload accept={ACCEPT} showUploadList={false} beforeUpload={(file) => pick(file, 'single')}>
              <Button type="primary" icon={<UploadOutlined />}>{t('upload')}</Button>
            </Upload>
            <Upload accept={ACCEPT} showUploadList={false} beforeUpload={(file) => pick(file, 'chunked')}>
              <Button icon={<CloudUploadOutlined />}>{t('uploadChunked')}</Button>
            </Upload>
          </Space>
          {transfer && (
            <div style={{ marginTop: 16 }}>
              <Typography.Text>
                {transfer.resumed ? t('resuming', { name: transfer.name }) : t('uploading', { name: transfer.name })}
                {' · '}{formatBytes(transfer.sent)} / {formatBytes(transfer.total)}
                {transfer.state === 'paused' && <Tag style={{ marginLeft: 8 }}>{t('paused')}</Tag>}
              </Typography.Text>
              <Progress
                aria-label={t('progressLabel', { name: transfer.name })}
                percent={percent(transfer.sent, transfer.total)}
                status={transfer.state === 'failed' ? 'exception' : transfer.state === 'running' ? 'active' : 'normal'}
              />
              {transfer.chunked && (
                <Space>
                  {transfer.state === 'running'
                    ? <Button icon={<PauseOutlined />} onClick={() => chunked.current?.pause()}>{t('pause')}</Button>
                    : chunked.current && <Button type="primary" icon={<CaretRightOutlined />} onClick={() => void continueChunked(chunked.current!)}>{t('resume')}</Button>}
                  {transfer.state !== 'running' && (
                    <Button onClick={() => {
                      const id = chunked.current?.upload?.chunkId;
                      if (id) forgetPending(localStorage, id);
                      chunked.current = null;
                      setTransfer(null);
                      setPending(loadPending(localStorage));
                    }}>{t('cancel')}</Button>
                  )}
                </Space>
              )}
            </div>
          )}
          {pending.filter((p) => p.chunkId !== chunked.current?.upload?.chunkId).length > 0 && (
            <Alert
              style={{ marginTop: 16 }}
              type="info"
              showIcon
              message={t('pending')}
              description={(
                <>
                  <Typography.Paragraph>{t('pendingHint')}</Typography.Paragraph>
                  <List
                    size="small"
                    dataSource={pending.filter((p) => p.chunkId !== chunked.current?.upload?.chunkId)}
                    renderItem={(p) => (
                      <List.Item actions={[
                        <Button key="discard" size="small" aria-label={`${t('discard')} ${p.name}`} onClick={() => { forgetPending(localStorage, p.chunkId); setPending(loadPending(localStorage)); }}>{t('discard')}</Button>,
                      ]}>
                        {p.name} ({formatBytes(p.size)})
                      </List.Item>
                    )}
                  />
                </>
              )}
            />
          )}
          {recent.length > 0 && (
            <List
              style={{ marginTop: 16 }}
              header={t('recent')}
              size="small"
              bordered
              dataSource={recent}
              renderItem={(a) => <List.Item actions={[<Space key="links" size={0}>{links(a)}</Space>]}>{typeLabel(a.type)} {a.original_name} ({formatBytes(a.size)})</List.Item>}
            />
          )}
        </Card>
      )}
      {canView ? (
        <Card title={t('list')}>
          <AttachmentList links={links} typeLabel={typeLabel} onDeleted={(id) => setRecent((r) => r.filter((a) => a.id !== id))} />
        </Card>
      ) : (
        <Alert type="info" showIcon message={t('noView')} />
      )}
      <Modal open={previewing !== null} title={previewing?.name} footer={null} onCancel={() => setPreviewing(null)} width={720}>
        {previewing && <Image src={previewing.url} alt={previewing.name} preview={false} style={{ maxWidth: '100%' }} />}
      </Modal>
    </Space>
  );
}

/** Every file, for holders of attachment.view: the kit's list, with delete for holders of attachment.delete. */
function AttachmentList({ links, typeLabel, onDeleted }: {
  links: (a: Attachment) => ReactNode;
  typeLabel: (type: string) => ReactNode;
  onDeleted: (id: number) => void;
}) {
  const { t } = useTranslation(['attachments', 'common']);
  const { can } = useAuth();
  const list = useList(attachmentsQuery);
  const { change } = useChange(attachmentsQuery.key);
  const remove = (a: Attachment) =>
    void change(() => unwrap(api.DELETE('/api/admin/attachments/{id}', { params: { path: { id: a.id } } })), t('common:state.deleted')).then((ok) => {
      if (ok) onDeleted(a.id);
    });
  const columns: Column<Attachment, ListQuery<'/api/admin/attachments'>>[] = [
    { title: t('common:field.id'), dataIndex: 'id', width: 70 },
    { title: t('name'), dataIndex: 'original_name', ellipsis: true, filter: { kind: 'text', key: 'original_name', max: 255 } },
    {
      title: t('type'), dataIndex: 'type', width: 110, render: typeLabel,
      filter: { kind: 'select', key: 'type', width: 140, options: ['image', 'document', 'video'].map((v) => ({ value: v, label: t(v) })) },
    },
    { title: t('size'), dataIndex: 'size', width: 110, render: (n: number) => formatBytes(n) },
    { detail: true, title: t('contentType'), dataIndex: 'content_type', ellipsis: true },
    { title: t('uploader'), dataIndex: 'uploader_name', width: 140, ellipsis: true, render: (name: string | null, a) => name ?? t('common:state.adminGone', { id: a.uploaded_by }) },
    { title: t('common:field.createdAt'), dataIndex: 'created_at', width: 180 },
    {
      title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 260,
      render: (_: unknown, a) => <RowActions name={a.original_name} onDelete={can('attachment.delete') && (() => remove(a))}>{links(a)}</RowActions>,
    },
  ];
  return <ListView list={list} columns={columns} name="attachmentFilters" />;
}
