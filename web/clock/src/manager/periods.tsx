// Approving and locking periods in Timesheets: a worker's period approved from their days (refused
// in words while automatic clock-outs or correction requests are left in Exceptions), and the
// period on the list locked after payroll (every worker, or the ones chosen; refused with who is not
// approved yet) or unlocked with a reason (POST /api/managers/timesheets/{userId}/approve,
// /api/managers/periods/lock and /unlock).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Form, Input, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { FormModal } from '../../../shared/antd/FormModal.tsx';
import { messageOf } from '../../../shared/feedback.ts';
import type { Tr } from './common.tsx';

const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);

/** A refusal of an approval in words: what is left in Exceptions. */
export function approvalRefusal(err: unknown, t: Tr, tm: Tr): string {
  if (err instanceof ApiError && err.code === 'PERIOD_NOT_READY') {
    const autos = count(err.details.autoClockOuts);
    const pending = count(err.details.pendingCorrections);
    const left = [
      autos > 0 ? t('approve.autos', { count: autos }) : null,
      pending > 0 ? t('approve.pending', { count: pending }) : null,
    ].filter(Boolean).join(t('approve.and'));
    return t('approve.notReady', { left });
  }
  return messageOf(err, tm);
}

/** Approves the worker's days `from`..`to`. */
export function ApproveButton({ userId, from, to, approved }: { userId: number; from: string; to: string; approved: boolean }) {
  const { t } = useTranslation('hours');
  const { t: tm } = useTranslation('manager');
  const client = useQueryClient();
  const { message } = App.useApp();
  const approve = useMutation({
    mutationFn: () => call(api.POST('/api/managers/timesheets/{userId}/approve', { params: { path: { userId } }, body: { from, to } })),
    onSuccess: () => {
      void message.success(t('approve.done'));
      void client.invalidateQueries({ queryKey: ['timesheet'] });
      void client.invalidateQueries({ queryKey: ['timesheets'] });
    },
  });
  return (
    <div className="ts-approve">
      <Space wrap>
        <Button type={approved ? 'default' : 'primary'} loading={approve.isPending} onClick={() => approve.mutate()}>
          {approved ? t('approve.again') : t('approve.button')}
        </Button>
        {approved && <Typography.Text type="success">{t('approve.all')}</Typography.Text>}
      </Space>
      {approve.isError && <Alert type="warning" showIcon role="alert" style={{ marginTop: 8 }} message={approvalRefusal(approve.error, t, tm)} />}
    </div>
  );
}

interface LockValues { userIds?: number[]; reason?: string }

/** Lock and Unlock for the period on the list, each in a dialog (the workers: all, or chosen). */
export function PeriodButtons({ from, to, workers }: { from: string; to: string; workers: { userId: number; name: string }[] }) {
  const { t } = useTranslation('hours');
  const [open, setOpen] = useState<'lock' | 'unlock' | null>(null);
  return (
    <Space wrap className="ts-periods">
      <Typography.Text strong>{t('lock.title')}</Typography.Text>
      <Button onClick={() => setOpen('lock')}>{t('lock.button')}</Button>
      <Button onClick={() => setOpen('unlock')}>{t('unlock.button')}</Button>
      {open && <PeriodDialog kind={open} from={from} to={to} workers={workers} onClose={() => setOpen(null)} />}
    </Space>
  );
}

function PeriodDialog({ kind, from, to, workers, onClose }: { kind: 'lock' | 'unlock'; from: string; to: string; workers: { userId: number; name: string }[]; onClose: () => void }) {
  const { t } = useTranslation('hours');
  const { t: tm } = useTranslation('manager');
  const [form] = Form.useForm<LockValues>();
  const client = useQueryClient();
  const { message } = App.useApp();
  const save = useMutation({
    mutationFn: (v: LockValues): Promise<unknown> => {
      const userIds = v.userIds?.length ? { userIds: v.userIds } : {};
      return kind === 'lock'
        ? call(api.POST('/api/managers/periods/lock', { body: { from, to, ...userIds } }))
        : call(api.POST('/api/managers/periods/unlock', { body: { from, to, reason: (v.reason ?? '').trim(), ...userIds } }));
    },
    onSuccess: () => {
      void message.success(t(`${kind}.done`));
      void client.invalidateQueries({ queryKey: ['timesheet'] });
      void client.invalidateQueries({ queryKey: ['timesheets'] });
      onClose();
    },
  });
  const refusal = save.error instanceof ApiError && save.error.status === 404 && kind === 'unlock' ? t('unlock.none')
    : save.error instanceof ApiError && save.error.status === 403 ? t('lock.forbidden')
      : save.error ? messageOf(save.error, tm) : null;
  return (
    <FormModal<LockValues> form={form} name={`period-${kind}`} title={t(`${kind}.dialog`, { from, to })} okText={t(`${kind}.ok`)}
      pending={save.isPending} onClose={onClose} onFinish={(v) => save.mutate(v)}
      intro={<Typography.Paragraph type="secondary">{t(`${kind}.help`)}</Typography.Paragraph>}>
      <Form.Item name="userIds" label={t('lock.workers')} extra={t('lock.workersHelp')}>
        <Select mode="multiple" allowClear placeholder={t('lock.everyone')} optionFilterProp="label"
          options={workers.map((w) => ({ value: w.userId, label: w.name }))} />
      </Form.Item>
      {kind === 'unlock' && (
        <Form.Item name="reason" label={t('unlock.reason')} rules={[{ required: true, whitespace: true, message: t('unlock.reasonRequired') }, { max: 500 }]}>
          <Input.TextArea rows={2} />
        </Form.Item>
      )}
      {refusal && <Alert type="error" showIcon role="alert" message={refusal} />}
    </FormModal>
  );
}
