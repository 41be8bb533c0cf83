// An export runs on the server as a task: it is started, its progress shown (rows written) until
// the file is ready, then downloaded with the same token. Used by every screen that exports.
import { DownloadOutlined, ExportOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Modal, Progress, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, download, unwrap } from '../api/client.ts';
import { addStrings } from '../i18n/index.ts';
import { useAction } from '../../../shared/antd/feedback.tsx';
import { messageOf } from '../../../shared/feedback.ts';

addStrings('export', {
  'en-US': {
    title: 'Export', pending: 'Waiting for a worker…', processing: 'Writing… {{rows}} rows so far', completed: 'Ready: {{rows}} rows',
    failed: 'The export failed: {{error}}', expired: 'The file has expired; export again.', download: 'Download the file',
  },
  'zh-CN': {
    title: '导出', pending: '等待处理…', processing: '正在写入…已写 {{rows}} 行', completed: '已完成：{{rows}} 行',
    failed: '导出失败：{{error}}', expired: '文件已过期，请重新导出。', download: '下载文件',
  },
});

/** `label`: the button's words when a screen offers several files (default "Export"). */
export function ExportTask({ start, fileName, disabled, label }: { start: () => Promise<{ id: number }>; fileName: string; disabled?: boolean; label?: string }) {
  const { t } = useTranslation(['export', 'common']);
  const run = useAction();
  const [taskId, setTaskId] = useState<number | null>(null);
  const task = useQuery({
    queryKey: ['export', taskId],
    queryFn: () => unwrap(api.GET('/api/admin/exports/{id}', { params: { path: { id: taskId! } } })),
    enabled: taskId !== null,
    refetchInterval: (q) => (q.state.data && ['completed', 'failed', 'expired'].includes(q.state.data.status) ? false : 1000),
  });
  const begin = () => void run(async () => setTaskId((await start()).id), t('pending'));
  const s = task.data;
  const done = s?.status === 'completed';
  return (
    <>
      <Button icon={<ExportOutlined />} onClick={begin} disabled={disabled}>{label ?? t('common:action.export')}</Button>
      <Modal
        open={taskId !== null}
        title={t('title')}
        onCancel={() => setTaskId(null)}
        footer={<Button onClick={() => setTaskId(null)}>{t('common:action.close')}</Button>}
      >
        <Space direction="vertical" style={{ width: '100%' }} role="status">
          <Progress percent={done ? 100 : s?.status === 'processing' ? 50 : 5} status={s?.status === 'failed' ? 'exception' : done ? 'success' : 'active'} />
          <Typography.Text>
            {task.error ? messageOf(task.error, (k) => t(`common:${k}`)) : !s ? t('pending') : s.status === 'failed' ? t('failed', { error: s.error ?? '' })
              : s.status === 'expired' ? t('expired') : s.status === 'completed' ? t('completed', { rows: s.rows_written }) : s.status === 'processing' ? t('processing', { rows: s.rows_written }) : t('pending')}
          </Typography.Text>
          {done && s.download_url && (
            <Button type="primary" icon={<DownloadOutlined />} onClick={() => void run(() => download(s.download_url!, fileName))}>{t('download')}</Button>
          )}
        </Space>
      </Modal>
    </>
  );
}
