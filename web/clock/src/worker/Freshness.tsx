// What the history and security screens say about the data they show: nothing when it is the
// server's answer of now; "as of <time>" for the copy kept on the phone (while updating, or with
// why it could not be updated); the reason alone when nothing could be loaded at all.
import { useTranslation } from 'react-i18next';
import { refusalText } from '../auth/SignIn.tsx';
import { when } from './format.ts';

export function Freshness({ asOf, error }: { asOf: string | null; error: unknown }) {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  if (!asOf) return null;
  return (
    <p className="note stale" role="status" data-testid="as-of">
      {error ? t('cached.failed', { time: when(asOf), reason: refusalText(error, tc) }) : t('cached.updating', { time: when(asOf) })}
    </p>
  );
}

export function LoadFailed({ error }: { error: unknown }) {
  const { t } = useTranslation('worker');
  const { t: tc } = useTranslation();
  return <p className="refusal" role="alert">{t('loadFailed', { reason: refusalText(error, tc) })}</p>;
}
