// What the three logs share beyond the list kit: the time column's filter (a date range with its
// precision), the list whose rows open their detail in a drawer, pretty-printed JSON, and the
// links between rows of the same request (trace ID).
import { Button, Descriptions, Drawer, Space, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAuth } from '../../auth/auth.tsx';
import { ExportTask } from '../../components/ExportTask.tsx';
import { ListView, type Column } from '../../../../shared/antd/ListView.tsx';
import type { ListState } from '../../../../shared/list/useList.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';

addStrings('logs', strings);

export const OPERATION_PATH = '/logs/operation';
export const SYSTEM_PATH = '/logs/system';

/**
 * The time column of a log: it filters by a date range, either end optional, in whole days or,
 * with "time of day" on, to the second (the two forms the server takes).
 */
export const timeFilter = (t: TFunction) => ({
  kind: 'dateRange' as const, keys: ['start_date', 'end_date'] as ['start_date', 'end_date'], label: t('logs:dates'), openEnded: true, timeSwitch: t('logs:withTime'),
});

type Details = { label: string; value: ReactNode }[];

/**
 * A log's list: the kit's list with a last column that opens a row's detail, in a drawer.
 * `details(row, close)` gives the drawer's fields (`close`, for a link that leaves the drawer).
 */
export function LogList<Row extends { id: number }, Q>({ list, columns, details, toolbar }: {
  list: ListState<Q, { list: Row[]; total: number }>;
  columns: Column<Row, Q>[];
  details: (row: Row, close: () => void) => Details;
  toolbar?: ReactNode;
}) {
  const { t } = useTranslation(['logs', 'common']);
  const [open, setOpen] = useState<Row | null>(null);
  const close = () => setOpen(null);
  const detail: Column<Row, Q> = {
    title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 90,
    render: (_: unknown, row: Row) => <Button type="link" size="small" aria-label={`${t('detail')} #${row.id}`} onClick={() => setOpen(row)}>{t('detail')}</Button>,
  };
  return (
    <>
      <ListView<Row, Q, { list: Row[]; total: number }> list={list} columns={[...columns, detail]} table={{ size: 'middle' }} toolbar={toolbar} />
      <Drawer open={open !== null} onClose={close} title={open && t('detailOf', { id: open.id })} size="large" destroyOnHidden closable={{ 'aria-label': t('common:action.close') }}>
        {open && <Descriptions column={1} bordered size="small" items={details(open, close).map((i) => ({ key: i.label, label: i.label, children: i.value }))} />}
      </Drawer>
    </>
  );
}

/** JSON as indented text (copyable), or a dash when there is none. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0)) return <>—</>;
  const text = JSON.stringify(value, null, 2);
  return (
    <div style={{ width: '100%' }}>
      <Typography.Paragraph copyable={{ text }} style={{ marginBottom: 4 }} />
      <pre aria-label={label} style={{ margin: 0, maxHeight: 360, overflow: 'auto', padding: 8, borderRadius: 6, background: 'rgba(127,127,127,0.1)', fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>{text}</pre>
    </div>
  );
}

/**
 * The export buttons of a log (CSV and XLSX, with the list's current filters), for holders of
 * the list's permission: `start(format)` queues the task.
 */
export function LogExports({ name, start }: { name: string; start: (format: 'csv' | 'xlsx') => Promise<{ id: number }> }) {
  const { t } = useTranslation(['logs']);
  return (
    <Space wrap>
      <ExportTask label={t('exportCsv')} fileName={`${name}.csv`} start={() => start('csv')} />
      <ExportTask label={t('exportXlsx')} fileName={`${name}.xlsx`} start={() => start('xlsx')} />
    </Space>
  );
}

export const operationTraceLink = (traceId: string) => `${OPERATION_PATH}?${new URLSearchParams({ trace_id: traceId }).toString()}`;
export const systemTraceLink = (traceId: string) => `${SYSTEM_PATH}?${new URLSearchParams({ trace_id: traceId }).toString()}`;

/** A trace ID, with links to the rows of both logs that carry it. */
export function TraceLinks({ traceId, onFollow }: { traceId: string; onFollow?: () => void }) {
  const { t } = useTranslation(['logs']);
  const { can } = useAuth();
  if (!traceId) return <Typography.Text type="secondary">{t('noTrace')}</Typography.Text>;
  return (
    <Space direction="vertical" size={2}>
      <Typography.Text code copyable>{traceId}</Typography.Text>
      <Space wrap>
        {can('log.system') && <Link to={systemTraceLink(traceId)} onClick={onFollow}>{t('traceSystem')}</Link>}
        {can('log.operation') && <Link to={operationTraceLink(traceId)} onClick={onFollow}>{t('traceOperation')}</Link>}
      </Space>
    </Space>
  );
}

export const statusTag = (code: number) => <Tag color={code >= 500 ? 'red' : code >= 400 ? 'orange' : 'green'}>{code}</Tag>;
export const LEVEL_COLORS: Record<string, string> = { error: 'red', warning: 'orange', info: 'blue', debug: 'default' };
