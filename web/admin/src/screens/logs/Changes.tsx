// The before and after values an operation log row keeps (the server's `changes`): per record,
// what was done to it, named as people know it, and each changed field as a removed and an added
// line, the way a diff reads. Stacked rather than in columns, so it reads the same in the detail
// drawer at 390 px.
import { Space, theme, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PageOf } from '../../../../shared/list/params.ts';
import type { operationLogsQuery } from './query.ts';

type Change = NonNullable<PageOf<typeof operationLogsQuery>['list'][number]['changes']>[number];

export function Changes({ changes }: { changes: Change[] | null }) {
  const { t } = useTranslation(['logs']);
  const { token } = theme.useToken();
  if (!changes || changes.length === 0) return <>—</>;
  const shown = (v: unknown) => (v === null || v === undefined || v === '' ? t('empty') : typeof v === 'string' ? v : JSON.stringify(v));
  const line = (sign: string, label: string, value: unknown, background: string) => (
    <div aria-label={`${label}: ${shown(value)}`} style={{ background, borderRadius: 4, padding: '1px 6px', whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontSize: 13 }}>
      <span aria-hidden style={{ userSelect: 'none', opacity: 0.6 }}>{sign} </span>{shown(value)}
    </div>
  );
  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }}>
      {changes.map((c) => {
        const heading = t(`changeOp.${c.op}`, { entity: t(`entities.${c.entity}`, { defaultValue: c.entity }), id: c.label ? `“${c.label}” (#${c.id})` : `#${c.id}` });
        return (
          <section key={`${c.entity}:${c.id}`} aria-label={heading}>
            <Typography.Text strong>{heading}</Typography.Text>
            {c.fields.length === 0 && <div><Typography.Text type="secondary">{t('noChange')}</Typography.Text></div>}
            {c.fields.map((f) => (
              <div key={f.field} style={{ marginTop: 6 }}>
                <Typography.Text code>{f.field}</Typography.Text>
                {c.op !== 'create' && line('−', t('before'), f.before, token.colorErrorBg)}
                {c.op !== 'delete' && line('+', t('after'), f.after, token.colorSuccessBg)}
              </div>
            ))}
          </section>
        );
      })}
    </Space>
  );
}
