// CSV import: the file is sent as multipart `file` (XMLHttpRequest, for the upload progress);
// the reply is shown as a summary and a table of the rows that were not imported. A sample
// file can be downloaded before, and every rejected row (the table lists only the first ones)
// after, as a CSV to fix and import again; both through the session's authenticated download.
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Alert, Button, Modal, Progress, Space, Table, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { download } from '../../api/client.ts';
import { apiErrorOf, networkError } from '../../api/errors.ts';
import type { paths } from '../../api/schema.gen.ts';
import { getSession } from '../../api/session.ts';
import { messageOf } from '../../../../shared/feedback.ts';
import { useAction } from '../../../../shared/antd/feedback.tsx';
import i18n from '../../i18n/index.ts';
import { importErrorRows, importOutcome, type ImportSummary } from './logic.ts';

/** The sample file's route (typed: a renamed route breaks the build). */
const SAMPLE: keyof paths = '/api/admin/orders/import/sample';

/** POSTs the file; `onProgress` gets the share of the upload sent (0…100). */
function upload(file: File, onProgress: (percent: number) => void): Promise<ImportSummary> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/admin/orders/import');
    const session = getSession();
    if (session) xhr.setRequestHeader('authorization', `Bearer ${session.token}`);
    xhr.setRequestHeader('accept-language', i18n.language);
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100)); };
    xhr.onerror = () => reject(networkError(new Error('network')));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch { /* not JSON */ }
      if (xhr.status === 200 && body && typeof body === 'object' && 'data' in body) resolve((body as { data: ImportSummary }).data);
      else reject(apiErrorOf(xhr.status, body ?? xhr.responseText, xhr.getResponseHeader('x-trace-id')));
    };
    const data = new FormData();
    data.append('file', file, file.name);
    xhr.send(data);
  });
}

export function ImportOrders({ onClose }: { onClose: (imported: boolean) => void }) {
  const { t } = useTranslation(['orders', 'common']);
  const run = useAction();
  const [percent, setPercent] = useState<number | null>(null);
  const [summary, setSummary] = useState<ImportSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = percent !== null && !summary && !error;

  const start = (file: File) => {
    setSummary(null);
    setError(null);
    setPercent(0);
    upload(file, setPercent).then(setSummary, (err: unknown) => setError(messageOf(err, (k) => t(`common:${k}`))));
  };
  const outcome = summary ? importOutcome(summary) : null;

  return (
    <Modal
      open
      width={760}
      title={t('importTitle')}
      onCancel={() => onClose(!!summary && summary.succeeded > 0)}
      maskClosable={!busy}
      footer={<Button onClick={() => onClose(!!summary && summary.succeeded > 0)} disabled={busy}>{t('common:action.close')}</Button>}
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>{t('importHint')}</Typography.Paragraph>
        <Button
          type="link"
          icon={<DownloadOutlined />}
          style={{ paddingInline: 0 }}
          onClick={() => void run(() => download(SAMPLE, 'orders-import-sample.csv'))}
        >
          {t('downloadSample')}
        </Button>
        <Upload.Dragger
          accept=".csv,text/csv"
          multiple={false}
          showUploadList={false}
          disabled={busy}
          beforeUpload={(file) => {
            start(file);
            return false;
          }}
        >
          <p className="ant-upload-drag-icon"><InboxOutlined /></p>
          <p className="ant-upload-text">{summary || error ? t('importAgain') : t('chooseFile')}</p>
        </Upload.Dragger>
        {percent !== null && (
          <div role="status">
            <Progress percent={summary || error ? 100 : Math.min(percent, 99)} status={error ? 'exception' : summary ? 'success' : 'active'} />
            {busy && <Typography.Text type="secondary">{percent < 100 ? t('uploading') : t('importing')}</Typography.Text>}
          </div>
        )}
        {error && <Alert type="error" showIcon title={error} />}
        {summary && outcome && (
          <>
            <Alert type={outcome} showIcon title={t('summary', { total: summary.total, succeeded: summary.succeeded, failed: summary.failed, duplicates: summary.duplicates })} />
            {summary.rejected_url && (
              <Space wrap size={[12, 4]}>
                <Button icon={<DownloadOutlined />} onClick={() => void run(() => download(summary.rejected_url!, `orders-import-${summary.id}-rejected.csv`))}>
                  {t('downloadRejected')}
                </Button>
                <Typography.Text type="secondary">{t('rejectedHint', { count: summary.failed })}</Typography.Text>
              </Space>
            )}
            {summary.errors.length > 0 && (
              <Table
                size="small"
                rowKey="key"
                pagination={summary.errors.length > 10 ? { pageSize: 10 } : false}
                dataSource={importErrorRows(summary)}
                aria-label={t('reason')}
                columns={[
                  { title: t('row'), dataIndex: 'row', width: 70 },
                  { title: t('requestId'), dataIndex: 'requestId', width: 180 },
                  { title: t('reason'), dataIndex: 'reason' },
                ]}
              />
            )}
            {summary.errors_truncated && <Typography.Text type="warning">{t('errorsTruncated')}</Typography.Text>}
          </>
        )}
      </Space>
    </Modal>
  );
}
