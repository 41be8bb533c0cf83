// The worker's own security status: the risk level now, explained; the score; the alerts of the
// last 7 days in words. The last status loaded is kept on the phone and shown without a network,
// with the time it was loaded.
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { useCached } from './cached.ts';
import { when } from './format.ts';
import { Freshness, LoadFailed } from './Freshness.tsx';

const load = (userId: number) => call(api.GET('/api/security/status/{userId}', { params: { path: { userId } } }));

export default function Security() {
  const { t } = useTranslation('worker');
  const { session } = useAuth();
  const { data: status, asOf, error } = useCached('security', session!.userId, load);

  const level = status?.securityStatus;
  return (
    <section className="security">
      <h2>{t('security.title')}</h2>
      {status ? <Freshness asOf={asOf} error={error} /> : error ? <LoadFailed error={error} /> : <p className="loading" role="status">…</p>}
      {status && level && (
        <>
          <div className={`level ${level}`} data-testid="risk-level">
            <p className="level-word">{t(`security.level_${level}`)}</p>
            <p>{t(`security.explain_${level}`)}</p>
            {status.latestSecurityCheck && <p className="muted">{t('security.score', { score: status.latestSecurityCheck.risk_score })}</p>}
          </div>
          <h3>{t('security.recent')}</h3>
          {status.recentAlerts.length === 0 ? <p className="note">{t('security.none')}</p> : (
            <ul className="alerts">
              {status.recentAlerts.map((a) => (
                <li key={a.id} className={a.severity}>
                  <span>{t(`security.alert.${a.alert_type}`, { defaultValue: a.alert_type })}</span>
                  <span className="muted">{when(a.created_at)} · {t(`security.severity.${a.severity}`)}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
