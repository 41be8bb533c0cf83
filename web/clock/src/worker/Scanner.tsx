// The scanner sheet: the camera's picture with a frame to hold the site's QR code in, the
// position's accuracy as soon as it is known, and a photo of the code as the way out when the
// camera is unavailable or refused. Calls onCode once with the text read.
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EventType } from './queue.ts';
import { prepareDecoder, scanFile, scanVideo, startCamera } from './scan.ts';

interface Props {
  eventType: EventType;
  /** Accuracy in metres once the position is known; undefined while it is being found. */
  accuracy: number | null | undefined;
  problem: string | null;
  busy: boolean;
  onCode: (text: string) => void;
  onCancel: () => void;
}

export function Scanner({ eventType, accuracy, problem, busy, onCode, onCancel }: Props) {
  const { t } = useTranslation('worker');
  const video = useRef<HTMLVideoElement>(null);
  const [camera, setCamera] = useState<'starting' | 'on' | 'off'>('starting');
  const [photoProblem, setPhotoProblem] = useState<string | null>(null);
  const done = useRef(false);
  const report = useRef(onCode);
  report.current = onCode;

  useEffect(() => {
    prepareDecoder();
    const abort = new AbortController();
    let stop: (() => void) | undefined;
    void (async () => {
      try {
        stop = await startCamera(video.current!);
        if (abort.signal.aborted) return stop();
        setCamera('on');
        const text = await scanVideo(video.current!, abort.signal);
        if (text && !done.current) {
          done.current = true;
          report.current(text);
        }
      } catch {
        if (!abort.signal.aborted) setCamera('off');
      }
    })();
    return () => {
      abort.abort();
      stop?.();
    };
  }, []);

  const photo = async (file: File | undefined) => {
    if (!file) return;
    setPhotoProblem(null);
    const text = await scanFile(file).catch(() => null);
    if (!text) return setPhotoProblem(t('scan.noCode'));
    if (!done.current) {
      done.current = true;
      report.current(text);
    }
  };

  return (
    <section className="scanner" role="dialog" aria-modal="true" aria-labelledby="scan-title">
      <h2 id="scan-title">{t(`scan.title_${eventType}`)}</h2>
      <div className={`viewfinder ${camera}`}>
        <video ref={video} muted playsInline aria-hidden="true" />
        {camera === 'on' && <div className="frame" aria-hidden="true" />}
      </div>
      {camera === 'off' ? <p className="note">{t('scan.noCamera')}</p> : <p className="hint">{t('scan.hint')}</p>}
      <p className="position" role="status">
        {busy ? t('scan.sending') : accuracy === undefined ? t('scan.positionWaiting') : t('scan.position', { accuracy: accuracy === null ? '?' : Math.round(accuracy) })}
      </p>
      {(problem || photoProblem) && <p className="refusal" role="alert">{problem ?? photoProblem}</p>}
      <label className={`photo ${camera === 'off' ? 'primary big' : 'secondary'}`}>
        {t('action.photo')}
        <input type="file" accept="image/*" capture="environment" onChange={(e) => void photo(e.target.files?.[0])} disabled={busy} />
      </label>
      <button type="button" className="secondary big" onClick={onCancel}>{t('action.cancel')}</button>
    </section>
  );
}
