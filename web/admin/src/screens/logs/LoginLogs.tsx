// Login log: every sign-in attempt, successful or not. Filters (in the URL): administrator ID,
// IP (fuzzy), result, a date range.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Form, Input, InputNumber, Select, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { QueryOfList } from '../../../../shared/list/params.ts';
import { useListParams } from '../../../../shared/list/useList.ts';
import { LogDrawer, LogFilters, LogTable } from './shared.tsx';
import { type listLogins, loginLogsQuery } from './query.ts';

type Row = Awaited<ReturnType<typeof listLogins>>['list'][number];

export default function LoginLogs() {
  const { t } = useTranslation(['logs', 'common']);
  const { params, setFilters, setPage } = useListParams<QueryOfList<typeof loginLogsQuery>>();
  const [open, setOpen] = useState<Row | null>(null);
  const f = params.filters;
  const list = useQuery({ ...loginLogsQuery(params), placeholderData: keepPreviousData });
  const reason = (r: string) => t(`reasons.${r}`, { defaultValue: r });
  const result = (s: number) => (s === 1 ? <Tag color="green">{t('success')}</Tag> : <Tag color="red">{t('failure')}</Tag>);

  return (
    <Card>
      <LogFilters filters={f} onSearch={setFilters}>
        <Form.Item name="admin_id" label={t('adminId')}><InputNumber min={1} precision={0} style={{ width: 120 }} /></Form.Item>
        <Form.Item name="ip" label={t('ip')} rules={[{ max: 64 }]}><Input allowClear style={{ width: 150 }} /></Form.Item>
        <Form.Item name="status" label={t('result')}>
          <Select allowClear style={{ width: 110 }} options={[{ value: '1', label: t('success') }, { value: '0', label: t('failure') }]} />
        </Form.Item>
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
          { title: t('username'), dataIndex: 'username', render: (v: string, r) => `${v}${r.admin_id ? ` (#${r.admin_id})` : ''}` },
          { title: t('ip'), dataIndex: 'ip' },
          { title: t('result'), dataIndex: 'status', width: 100, render: result },
          { title: t('reason'), dataIndex: 'reason', render: reason },
          { title: t('userAgent'), dataIndex: 'user_agent', ellipsis: true, render: (v: string) => v || '—' },
          { title: t('time'), dataIndex: 'created_at', width: 170 },
        ]}
      />
      {open && (
        <LogDrawer
          id={open.id}
          open
          onClose={() => setOpen(null)}
          items={[
            { label: t('username'), value: open.username },
            { label: t('adminId'), value: open.admin_id ?? '—' },
            { label: t('ip'), value: open.ip },
            { label: t('result'), value: result(open.status) },
            { label: t('reason'), value: reason(open.reason) },
            { label: t('userAgent'), value: open.user_agent || '—' },
            { label: t('time'), value: open.created_at },
          ]}
        />
      )}
    </Card>
  );
}
