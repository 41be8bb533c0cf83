// System log: warnings and errors of the service, each with the trace ID of its request. Filters
// (in the URL): level, trace ID (exact), a date range. A row links to the rows of both logs that
// carry its trace ID.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Form, Input, Select, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAuth } from '../../auth/auth.tsx';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { JsonBlock, LEVEL_COLORS, LogDrawer, LogFilters, LogTable, operationTraceLink, TraceLinks } from './shared.tsx';
import { type listSystem, systemLogsQuery } from './query.ts';

type Row = Awaited<ReturnType<typeof listSystem>>['list'][number];
const LEVELS = ['error', 'warning', 'info', 'debug'];

export default function SystemLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const { can } = useAuth();
  const { params, setFilters, setPage } = useListParams<QueryOfList<typeof systemLogsQuery>>();
  const [open, setOpen] = useState<Row | null>(null);
  const f = params.filters;
  const list = useQuery({ ...systemLogsQuery(params), placeholderData: keepPreviousData });
  const level = (l: string) => <Tag color={LEVEL_COLORS[l] ?? 'default'}>{l}</Tag>;

  return (
    <Card>
      <LogFilters filters={f} onSearch={setFilters}>
        <Form.Item name="level" label={t('level')}>
          <Select allowClear style={{ width: 120 }} options={LEVELS.map((l) => ({ value: l, label: l }))} />
        </Form.Item>
        <Form.Item name="trace_id" label={t('traceId')} rules={[{ max: 128 }]}><Input allowClear style={{ width: 280 }} /></Form.Item>
      </LogFilters>
      <LogTable<Row>
        query={list}
        params={params}
        setPage={setPage}
        rows={list.data?.list ?? []}
        total={list.data?.total ?? 0}
        filtered={Object.keys(f).length > 0}
        onOpen={setOpen}
        columns={[
          { title: t('common:field.id'), dataIndex: 'id', width: 80 },
          { title: t('level'), dataIndex: 'level', width: 100, render: level },
          { title: t('message'), dataIndex: 'message', ellipsis: true, render: (v: string) => v },
          {
            title: t('traceId'), dataIndex: 'trace_id', width: 200,
            render: (v: string) => (!v ? '—' : can('log.operation')
              ? <Link to={operationTraceLink(v)} aria-label={`${t('traceOperation')} ${v}`}>{v.slice(0, 12)}…</Link>
              : <Typography.Text code>{v.slice(0, 12)}…</Typography.Text>),
          },
          { title: t('time'), dataIndex: 'created_at', width: 170 },
        ]}
      />
      {open && (
        <LogDrawer
          id={open.id}
          open
          onClose={() => setOpen(null)}
          items={[
            { label: t('level'), value: level(open.level) },
            { label: t('message'), value: <Typography.Text style={{ whiteSpace: 'pre-wrap' }}>{open.message}</Typography.Text> },
            { label: t('time'), value: open.created_at },
            { label: t('traceId'), value: <TraceLinks traceId={open.trace_id} onFollow={() => setOpen(null)} /> },
            { label: t('context'), value: <JsonBlock value={open.context} label={t('context')} /> },
          ]}
        />
      )}
    </Card>
  );
}
