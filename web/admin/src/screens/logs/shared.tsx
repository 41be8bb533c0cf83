// What the three logs share: the filter form with its date range (a whole day `YYYY-MM-DD`, or
// to the second `YYYY-MM-DD HH:mm:ss` when "time of day" is on — the two forms the server takes),
// the list table wired to the URL's page, the detail drawer with pretty-printed JSON, and the
// links between rows of the same request (trace ID).
import { Button, DatePicker, Descriptions, Drawer, Form, Space, Switch, Table, Tag, Typography } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useAuth } from '../../auth/auth.tsx';
import { QueryError } from '../../../../shared/antd/feedback.tsx';
import { PAGE_SIZES, type ListParams } from '../../../../shared/list/params.ts';
import { addStrings } from '../../i18n/index.ts';
import { strings } from './strings.ts';
import { FilterButtons } from '../../../../shared/antd/FilterButtons.tsx';
import { type ListColumn, useListTable } from '../../../../shared/antd/listTable.tsx';

addStrings('logs', strings);

export const TIME = 'YYYY-MM-DD HH:mm:ss';
export const DAY = 'YYYY-MM-DD';
export const OPERATION_PATH = '/logs/operation';
export const SYSTEM_PATH = '/logs/system';

type Values = Record<string, unknown> & { range?: [dayjs.Dayjs | null, dayjs.Dayjs | null] | null; withTime?: boolean };

/** The form's initial values from the URL's filters (dates parsed back, "time of day" on when they carry one). */
function initialOf(f: Record<string, string>): Values {
  const { start_date, end_date, ...rest } = f;
  const withTime = [start_date, end_date].some((d) => d !== undefined && d.length > 10);
  const parse = (d: string | undefined) => (d && dayjs(d).isValid() ? dayjs(d) : null);
  return { ...rest, withTime, range: start_date || end_date ? [parse(start_date), parse(end_date)] : null };
}

/**
 * The filter form of a log: `children` are its own Form.Items (named after the query fields);
 * the date range and its precision are added here. `onSearch` gets every filter as text.
 */
export function LogFilters({ filters, onSearch, children }: {
  filters: Record<string, string>;
  onSearch: (filters: Record<string, string | undefined>) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation(['logs', 'common']);
  const [form] = Form.useForm<Values>();
  const withTime = Form.useWatch('withTime', form) ?? false;
  return (
    <Form<Values>
      form={form}
      className="list-filters"
      layout="inline"
      key={JSON.stringify(filters)}
      initialValues={initialOf(filters)}
      onFinish={(v) => {
        const { range, withTime: precise, ...rest } = v;
        const fmt = precise ? TIME : DAY;
        const text = Object.fromEntries(Object.entries(rest).map(([k, x]) => [k, x === undefined || x === null || x === '' ? undefined : String(x as string | number).trim() || undefined]));
        onSearch({ ...text, start_date: range?.[0]?.format(fmt), end_date: range?.[1]?.format(fmt) });
      }}
    >
      {children}
      <Form.Item name="range" label={t('dates')}>
        <DatePicker.RangePicker showTime={withTime} allowEmpty={[true, true]} aria-label={t('dates')} />
      </Form.Item>
      <Form.Item name="withTime" label={t('withTime')} valuePropName="checked"><Switch size="small" /></Form.Item>
      <FilterButtons onReset={() => onSearch({})} />
    </Form>
  );
}

/** A log's table: loading, empty (with or without filters) and error states, paging in the URL. */
export function LogTable<T extends { id: number }>({ query, params, setPage, columns, onOpen, filtered, rows, total }: {
  query: { error: unknown; isFetching: boolean; refetch: () => unknown };
  params: Pick<ListParams, 'page' | 'pageSize'>;
  setPage: (page: number, pageSize: number) => void;
  columns: ListColumn<T>[];
  onOpen: (row: T) => void;
  filtered: boolean;
  rows: T[];
  total: number;
}) {
  const { t } = useTranslation(['logs', 'common']);
  const table = useListTable();
  if (query.error) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <Table<T>
      rowKey="id"
      size="middle"
      loading={query.isFetching}
      dataSource={rows}
      locale={{ emptyText: filtered ? t('common:state.emptyFiltered') : t('common:state.empty') }}
      pagination={{ current: params.page, pageSize: params.pageSize, total, showSizeChanger: true, pageSizeOptions: PAGE_SIZES, onChange: setPage }}
      {...table<T>([
        ...columns,
        {
          title: t('common:field.actions'), key: 'actions', fixed: 'right', width: 90,
          render: (_: unknown, row: T) => <Button type="link" size="small" aria-label={`${t('detail')} #${row.id}`} onClick={() => onOpen(row)}>{t('detail')}</Button>,
        },
      ])}
    />
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

/** The detail drawer of a row: its fields, then its JSON blocks. */
export function LogDrawer({ id, open, onClose, items, children }: {
  id: number;
  open: boolean;
  onClose: () => void;
  items: { label: string; value: ReactNode }[];
  children?: ReactNode;
}) {
  const { t } = useTranslation(['logs', 'common']);
  return (
    <Drawer open={open} onClose={onClose} title={t('detailOf', { id })} size="large" destroyOnHidden closable={{ 'aria-label': t('common:action.close') }}>
      <Descriptions column={1} bordered size="small" items={items.map((i) => ({ key: i.label, label: i.label, children: i.value }))} />
      {children}
    </Drawer>
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
