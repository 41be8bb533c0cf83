// Operation log: every state-changing request of a signed-in administrator. Filters (in the URL):
// administrator ID, module, action and trace ID (exact), a date range. A trace ID (a link from a
// row of either log) shows the rows of that request, with a banner that says so.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, InputNumber, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { toQuery } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { JsonBlock, LogDrawer, LogFilters, LogTable, statusTag, TraceLinks } from './shared.tsx';

const listOperations = (query: ListQuery<'/api/admin/logs/operation'>) => unwrap(api.GET('/api/admin/logs/operation', { params: { query } }));
type Row = Awaited<ReturnType<typeof listOperations>>['list'][number];

export default function OperationLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const { params, setFilters, setPage } = useListParams<ListQuery<'/api/admin/logs/operation'>>();
  const [open, setOpen] = useState<Row | null>(null);
  const f = params.filters;
  const traceId = f.trace_id;

  const list = useQuery({ queryKey: ['logs', 'operation', params], queryFn: () => listOperations(toQuery<ListQuery<'/api/admin/logs/operation'>>(params)), placeholderData: keepPreviousData });

  return (
    <Card>
      <LogFilters filters={f} onSearch={setFilters}>
        <Form.Item name="admin_id" label={t('adminId')}><InputNumber min={1} precision={0} style={{ width: 120 }} /></Form.Item>
        <Form.Item name="module" label={t('module')} rules={[{ max: 64 }]}><Input allowClear style={{ width: 140 }} /></Form.Item>
        <Form.Item name="action" label={t('action')} rules={[{ max: 64 }]}><Input allowClear style={{ width: 140 }} /></Form.Item>
        <Form.Item name="trace_id" label={t('traceId')} rules={[{ max: 128 }]}><Input allowClear style={{ width: 280 }} /></Form.Item>
      </LogFilters>
      {traceId && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 12 }}
          message={t('traceFilter', { id: traceId })}
          action={<Button size="small" onClick={() => setFilters({})}>{t('clearTrace')}</Button>}
        />
      )}
      <LogTable<Row>
        query={list}
        params={params}
        setPage={setPage}
        rows={list.data?.list ?? []}
        total={list.data?.total ?? 0}
        filtered={Object.keys(f).length > 0}
        onOpen={setOpen}
        columns={[
          { detail: true, title: t('common:field.id'), dataIndex: 'id', width: 80 },
          { title: t('admin'), dataIndex: 'username', render: (v: string, r) => (v ? `${v}${r.admin_id ? ` (#${r.admin_id})` : ''}` : '—') },
          // What was done, named in the reader's language by the server; the slug stays in the details.
          { title: t('action'), dataIndex: 'action_label' },
          { title: t('method'), dataIndex: 'method', width: 90, render: (v: string) => <Tag>{v}</Tag> },
          { title: t('path'), dataIndex: 'path', ellipsis: true },
          { detail: true, title: t('ip'), dataIndex: 'ip' },
          { title: t('statusCode'), dataIndex: 'status_code', width: 100, render: statusTag },
          { detail: true, title: t('duration'), dataIndex: 'duration_ms', width: 100, render: (ms: number) => t('durationMs', { ms }) },
          { title: t('time'), dataIndex: 'created_at', width: 170 },
        ]}
      />
      {open && (
        <LogDrawer
          id={open.id}
          open
          onClose={() => setOpen(null)}
          items={[
            { label: t('admin'), value: open.username ? `${open.username}${open.admin_id ? ` (#${open.admin_id})` : ''}` : '—' },
            { label: t('action'), value: open.action_label },
            { label: t('slug'), value: <Typography.Text code>{`${open.module}.${open.action}`}</Typography.Text> },
            { label: t('method'), value: open.method },
            { label: t('route'), value: <Typography.Text code>{open.route}</Typography.Text> },
            { label: t('path'), value: open.path },
            { label: t('statusCode'), value: statusTag(open.status_code) },
            { label: t('duration'), value: t('durationMs', { ms: open.duration_ms }) },
            { label: t('ip'), value: open.ip },
            { label: t('userAgent'), value: open.user_agent || '—' },
            { label: t('time'), value: open.created_at },
            { label: t('traceId'), value: <TraceLinks traceId={open.trace_id} onFollow={() => setOpen(null)} /> },
            { label: t('params'), value: <JsonBlock value={open.params} label={t('params')} /> },
          ]}
        />
      )}
    </Card>
  );
}
