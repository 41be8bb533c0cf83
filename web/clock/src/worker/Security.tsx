// The worker's own security status: the risk level now, explained; the score; the alerts of the
// last 7 days in words.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, call } from '../api/client.ts';
import { useAuth } from '../auth/auth.tsx';
import { refusalText } from '../auth/SignIn.tsx';
import { when } from './format.ts';

type Status = Awaited<ReturnType<typeof load>>;
const load = (userId: number) => call(api.GET('/api/security/status/{userId}', { params: { path: { userId } } }));

export default function Security() {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  const { session } = useAuth();
  const [status, setStatus] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    load(session!.userId).then((r) => live && setStatus(r), (err: unknown) => live && setError(refusalText(err, tc)));
    return () => {
      live = false;
    };
  }, [session, tc]);

  const level = status?.securityStatus;
  return (
    <section className="security">
      <h2>{t('security.title')}</h2>
      {error && <p className="refusal" role="alert">{t('loadFailed', { reason: error })}</p>}
      {!status && !error && <p className="loading" role="status">…</p>}
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
