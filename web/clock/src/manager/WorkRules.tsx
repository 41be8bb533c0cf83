// Work rules: how punches become paid hours (the week's first day, daily and weekly overtime,
// required breaks, rounding, the long-session flag), with an example day computed by the server
// under the rules as they are being edited (POST /api/managers/work-rules/preview), so that the
// manager sees what a change does before saving it. Durations are edited in hours and minutes
// and sent in minutes.
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Form, InputNumber, Select, Space, Spin, TimePicker, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import type { paths } from '../api/schema.gen.ts';
import { addStrings } from '../i18n/index.ts';
import { hm } from '../worker/hours.ts';
import { QueryError } from '../../../shared/antd/feedback.tsx';
import { useSave } from '../../../shared/antd/useSave.ts';
import { messageOf } from '../../../shared/feedback.ts';
import { hoursStrings } from './hoursStrings.ts';

addStrings('hours', hoursStrings);

type Rules = paths['/api/managers/work-rules']['put']['requestBody']['content']['application/json'];
type Mode = Rules['rounding']['mode'];
/** The form's values: hours where people think in hours, on/off for the rules that can be off. */
interface Values {
  weekStartsOn: number;
  dailyOn: boolean;
  dailyHours: number;
  weeklyOn: boolean;
  weeklyHours: number;
  breakRules: { afterHours: number; breakMinutes: number }[];
  roundingMode: Mode;
  roundingMinutes: number;
  longHours: number;
  autoOn: boolean;
  autoHours: number;
  leftFenceMinutes: number;
  restOn: boolean;
  restHours: number;
  maxOn: boolean;
  maxHours: number;
  example: { start: Dayjs; end: Dayjs }[];
}

const EXAMPLE = [{ start: '08:00', end: '12:00' }, { start: '12:20', end: '17:45' }];
const toHours = (minutes: number) => Math.round((minutes / 60) * 100) / 100;
/** Today at `HH:mm` (only the time is used). */
function at(time: string): Dayjs {
  const [h = 0, m = 0] = time.split(':').map(Number);
  return dayjs().hour(h).minute(m).second(0).millisecond(0);
}

function valuesOf(r: Rules): Values {
  return {
    weekStartsOn: r.weekStartsOn,
    dailyOn: r.dailyOvertimeAfterMinutes !== null,
    dailyHours: toHours(r.dailyOvertimeAfterMinutes ?? 480),
    weeklyOn: r.weeklyOvertimeAfterMinutes !== null,
    weeklyHours: toHours(r.weeklyOvertimeAfterMinutes ?? 2400),
    breakRules: r.breakRules.map((b) => ({ afterHours: toHours(b.afterMinutes), breakMinutes: b.breakMinutes })),
    roundingMode: r.rounding.mode,
    roundingMinutes: r.rounding.minutes,
    longHours: toHours(r.longSessionMinutes),
    autoOn: r.autoClockOutAfterMinutes !== null,
    autoHours: toHours(r.autoClockOutAfterMinutes ?? 720),
    leftFenceMinutes: r.leftFenceMinutes ?? 30,
    restOn: r.minRestMinutes !== null,
    restHours: toHours(r.minRestMinutes ?? 660),
    maxOn: r.maxDailyMinutes !== null,
    maxHours: toHours(r.maxDailyMinutes ?? 600),
    example: EXAMPLE.map((e) => ({ start: at(e.start), end: at(e.end) })),
  };
}

/** The rules the form's values say; undefined while a value is missing or out of range. */
function rulesOf(v: Partial<Values>): Rules | undefined {
  const minutes = (h: number | undefined) => (typeof h === 'number' && Number.isFinite(h) ? Math.round(h * 60) : undefined);
  const daily = minutes(v.dailyHours);
  const weekly = minutes(v.weeklyHours);
  const long = minutes(v.longHours);
  const auto = minutes(v.autoHours);
  const rest = minutes(v.restHours);
  const max = minutes(v.maxHours);
  if (!v.weekStartsOn || daily === undefined || weekly === undefined || long === undefined || !v.roundingMode || !v.roundingMinutes) return undefined;
  if (auto === undefined || rest === undefined || max === undefined || typeof v.leftFenceMinutes !== 'number') return undefined;
  const breakRules = (v.breakRules ?? []).filter(Boolean).map((b) => ({ afterMinutes: minutes(b.afterHours) ?? -1, breakMinutes: b.breakMinutes }));
  if (breakRules.some((b) => b.afterMinutes < 0 || !b.breakMinutes)) return undefined;
  return {
    weekStartsOn: v.weekStartsOn,
    dailyOvertimeAfterMinutes: v.dailyOn ? daily : null,
    weeklyOvertimeAfterMinutes: v.weeklyOn ? weekly : null,
    breakRules,
    rounding: { mode: v.roundingMode, minutes: v.roundingMinutes },
    longSessionMinutes: long,
    autoClockOutAfterMinutes: v.autoOn ? auto : null,
    leftFenceMinutes: v.leftFenceMinutes,
    minRestMinutes: v.restOn ? rest : null,
    maxDailyMinutes: v.maxOn ? max : null,
  };
}

/** The value a changing input settles on, after `ms` without a change. */
function useSettled<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(JSON.parse(key) as T), ms);
    return () => clearTimeout(timer);
  }, [key, ms]);
  return settled;
}

function ExampleDay({ values }: { values: Partial<Values> }) {
  const { t } = useTranslation('hours');
  const { t: tm } = useTranslation('manager');
  const rules = rulesOf(values);
  const sessions = (values.example ?? []).filter((e) => e?.start && e.end).map((e) => ({ start: e.start.format('HH:mm'), end: e.end.format('HH:mm') }));
  const body = useSettled(rules && sessions.length ? { rules, sessions } : null);
  const preview = useQuery({
    queryKey: ['work-rules-preview', body],
    queryFn: () => call(api.POST('/api/managers/work-rules/preview', { body: body! })),
    enabled: body !== null,
    placeholderData: (previous) => previous,
  });
  const d = preview.data;
  return (
    <div className="wr-result" aria-live="polite" data-testid="example-result">
      {preview.isError ? <Alert type="error" showIcon message={messageOf(preview.error, tm)} />
        : d ? (
          <Spin spinning={preview.isFetching}>
            <p>{t('rules.result', { worked: hm(d.workedSeconds), break: hm(d.breakSeconds), paid: hm(d.paidSeconds), regular: hm(d.regularSeconds), overtime: hm(d.overtimeSeconds) })}</p>
            {d.flags.length > 0 && <ul>{d.flags.map((f) => <li key={f}>{t(`flag.${f}_help`)}</li>)}</ul>}
          </Spin>
        ) : <Typography.Text type="secondary">{t('rules.computing')}</Typography.Text>}
    </div>
  );
}

export default function WorkRules() {
  const { t } = useTranslation('hours');
  const { t: tm } = useTranslation('manager');
  const [form] = Form.useForm<Values>();
  const current = useQuery({ queryKey: ['work-rules'], queryFn: () => call(api.GET('/api/managers/work-rules')) });
  const values = Form.useWatch([], form) as Partial<Values> | undefined;
  const { submit, isPending } = useSave(form, {
    // The form's own rules keep the values in range, so its values always make rules.
    save: (v) => call(api.PUT('/api/managers/work-rules', { body: rulesOf(v)! })),
    invalidates: [['work-rules'], ['timesheets'], ['timesheet']],
    success: t('rules.saved'),
  });
  useEffect(() => {
    if (current.data) form.setFieldsValue(valuesOf(current.data));
  }, [current.data, form]);

  if (current.isError) return <QueryError error={current.error} onRetry={() => void current.refetch()} />;
  if (!current.data) return <p className="loading" role="status">{tm('state.loading')}</p>;
  const changed = current.data.updatedBy
    ? t('rules.changedBy', { name: current.data.updatedBy.fullName || current.data.updatedBy.username, time: dayjs(current.data.updatedAt).format('YYYY-MM-DD HH:mm') })
    : t('rules.defaults');
  // Fields stay mounted while hidden (a rule turned off keeps its value, and the form keeps reading it).
  const label = { dailyHours: 'daily', weeklyHours: 'weekly', longHours: 'long', autoHours: 'auto', restHours: 'rest', maxHours: 'max' } as const;
  const hours = (name: keyof typeof label, max: number, hidden = false, min = 0) => (
    <Form.Item name={name} noStyle hidden={hidden} rules={[{ required: true, type: 'number', min, max }]}>
      <InputNumber min={min} max={max} step={0.5} style={{ width: 150 }} addonAfter={t('rules.hours')} aria-label={t(`rules.${label[name]}`)} />
    </Form.Item>
  );
  /** A rule that can be off (null): a checkbox, the hours, and what off means. */
  const optional = (on: 'autoOn' | 'restOn' | 'maxOn', name: 'autoHours' | 'restHours' | 'maxHours', max: number, min: number) => (
    <Form.Item label={t(`rules.${label[name]}`)} extra={t(`rules.${label[name]}Help`)}>
      <Space wrap>
        <Form.Item name={on} valuePropName="checked" noStyle><Checkbox aria-label={t(`rules.${label[name]}`)} /></Form.Item>
        {values?.[on] === false && <Typography.Text type="secondary">{t(`rules.${label[name]}Off`)}</Typography.Text>}
        {hours(name, max, values?.[on] === false, min)}
      </Space>
    </Form.Item>
  );
  return (
    <Card>
      <Typography.Paragraph>{t('rules.intro')}</Typography.Paragraph>
      <Typography.Paragraph type="secondary">{changed}</Typography.Paragraph>
      <Form<Values> form={form} layout="vertical" className="wr-form" initialValues={valuesOf(current.data)}
        onFinish={submit}>
        <Form.Item name="weekStartsOn" label={t('rules.week')}>
          <Select style={{ maxWidth: 220 }} options={[1, 2, 3, 4, 5, 6, 7].map((d) => ({ value: d, label: t(`rules.days.${d}`) }))} />
        </Form.Item>
        <Form.Item label={t('rules.daily')}>
          <Space wrap>
            <Form.Item name="dailyOn" valuePropName="checked" noStyle><Checkbox aria-label={t('rules.daily')} /></Form.Item>
            {values?.dailyOn === false && <Typography.Text type="secondary">{t('rules.off')}</Typography.Text>}
            {hours('dailyHours', 24, values?.dailyOn === false)}
          </Space>
        </Form.Item>
        <Form.Item label={t('rules.weekly')}>
          <Space wrap>
            <Form.Item name="weeklyOn" valuePropName="checked" noStyle><Checkbox aria-label={t('rules.weekly')} /></Form.Item>
            {values?.weeklyOn === false && <Typography.Text type="secondary">{t('rules.off')}</Typography.Text>}
            {hours('weeklyHours', 168, values?.weeklyOn === false)}
          </Space>
        </Form.Item>
        <Form.Item label={t('rules.breaks')} extra={t('rules.breakHelp')}>
          <Form.List name="breakRules">
            {(fields, { add, remove }) => (
              <Space direction="vertical">
                {fields.length === 0 && <Typography.Text type="secondary">{t('rules.noBreaks')}</Typography.Text>}
                {fields.map((f) => (
                  <Space key={f.key} wrap align="baseline">
                    <Form.Item name={[f.name, 'afterHours']} label={t('rules.breakAfter')} rules={[{ required: true, type: 'number', min: 0, max: 24 }]}>
                      <InputNumber min={0} max={24} step={0.5} />
                    </Form.Item>
                    <Form.Item name={[f.name, 'breakMinutes']} label={t('rules.breakMinutes')} rules={[{ required: true, type: 'number', min: 1, max: 720 }]}>
                      <InputNumber min={1} max={720} step={5} />
                    </Form.Item>
                    <Button onClick={() => remove(f.name)}>{tm('action.delete')}</Button>
                  </Space>
                ))}
                {fields.length < 10 && <Button onClick={() => add({ afterHours: 6, breakMinutes: 30 })}>{t('rules.addBreak')}</Button>}
              </Space>
            )}
          </Form.List>
        </Form.Item>
        <Form.Item label={t('rules.rounding')}>
          <Space wrap>
            <Form.Item name="roundingMode" noStyle>
              <Select style={{ width: 170 }} aria-label={t('rules.rounding')}
                options={(['none', 'nearest', 'up', 'down'] as const).map((m) => ({ value: m, label: t(m === 'none' ? 'rules.roundingNone' : `rules.${m}`) }))} />
            </Form.Item>
            <Form.Item name="roundingMinutes" noStyle hidden={values?.roundingMode === 'none'}>
              <Select style={{ width: 130 }} aria-label={t('rules.minutes')} options={[1, 5, 6, 10, 15, 30, 60].map((m) => ({ value: m, label: `${m} ${t('rules.minutes')}` }))} />
            </Form.Item>
          </Space>
        </Form.Item>
        <Form.Item label={t('rules.long')}>{hours('longHours', 72)}</Form.Item>

        <Typography.Title level={4}>{t('rules.attendance')}</Typography.Title>
        {optional('autoOn', 'autoHours', 48, 1)}
        <Form.Item label={t('rules.leftFence')} extra={t('rules.leftFenceHelp')}>
          <Form.Item name="leftFenceMinutes" noStyle rules={[{ required: true, type: 'number', min: 5, max: 720 }]}>
            <InputNumber min={5} max={720} step={5} style={{ width: 150 }} addonAfter={t('rules.minutes')} aria-label={t('rules.leftFence')} />
          </Form.Item>
        </Form.Item>
        {optional('restOn', 'restHours', 24, 0)}
        {optional('maxOn', 'maxHours', 24, 1)}

        <section className="wr-example">
          <Typography.Title level={4}>{t('rules.example')}</Typography.Title>
          <Typography.Paragraph type="secondary">{t('rules.exampleHelp')}</Typography.Paragraph>
          <Form.List name="example">
            {(fields, { add, remove }) => (
              <Space direction="vertical">
                {fields.map((f) => (
                  <Space key={f.key} wrap>
                    <Form.Item name={[f.name, 'start']} noStyle><TimePicker format="HH:mm" allowClear={false} aria-label={t('rules.from')} placeholder={t('rules.from')} /></Form.Item>
                    –
                    <Form.Item name={[f.name, 'end']} noStyle><TimePicker format="HH:mm" allowClear={false} aria-label={t('rules.to')} placeholder={t('rules.to')} /></Form.Item>
                    {fields.length > 1 && <Button onClick={() => remove(f.name)}>{tm('action.delete')}</Button>}
                  </Space>
                ))}
                {fields.length < 8 && <Button onClick={() => add({ start: at('18:00'), end: at('20:00') })}>{t('rules.addSession')}</Button>}
              </Space>
            )}
          </Form.List>
          <ExampleDay values={values ?? {}} />
        </section>

        <Button type="primary" htmlType="submit" loading={isPending}>{tm('action.save')}</Button>
      </Form>
    </Card>
  );
}
