// The viewfinder on the clock screen: while `on`, the camera's picture with a frame to hold the
// site's QR code in, read a few times a second (onCode with every reading); while off, a
// placeholder to turn it on; when the camera is unavailable or refused, that said, and a photo of
// the code as the way out (also offered beside a working camera).
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { readVideo, scanFile, startCamera } from './scan.ts';

/** Time between two frames read: a few a second finds a code held up as fast as a worker can look, without heating the phone. */
const EVERY_MS = 250;
/** Once the code is read, reading it again keeps it fresh: once a second is enough (and leaves the phone free for the tap). */
const READ_EVERY_MS = 1000;

interface Props {
  on: boolean;
  /** The site's code is read (and fresh). */
  read: boolean;
  onCode: (text: string) => void;
  onTurnOn: () => void;
  /** Shown under the picture (the position's accuracy). */
  children?: ReactNode;
}

export function Scanner({ on, read, onCode, onTurnOn, children }: Props) {
  const { t } = useTranslation('worker');
  const video = useRef<HTMLVideoElement>(null);
  const [camera, setCamera] = useState<'starting' | 'on' | 'off'>('starting');
  const [photoProblem, setPhotoProblem] = useState<string | null>(null);
  const report = useRef(onCode);
  report.current = onCode;
  const seen = useRef(read);
  seen.current = read;

  useEffect(() => {
    if (!on) return;
    setCamera('starting');
    const abort = new AbortController();
    let stop: (() => void) | undefined;
    void (async () => {
      try {
        stop = await startCamera(video.current!);
        if (abort.signal.aborted) return stop();
        setCamera('on');
        await readVideo(video.current!, (text) => report.current(text), abort.signal, () => (seen.current ? READ_EVERY_MS : EVERY_MS));
      } catch {
        if (!abort.signal.aborted) setCamera('off');
      }
    })();
    return () => {
      abort.abort();
      stop?.();
    };
  }, [on]);

  const photo = async (file: File | undefined) => {
    if (!file) return;
    setPhotoProblem(null);
    const text = await scanFile(file).catch(() => null);
    if (text) report.current(text);
    else setPhotoProblem(t('scan.noCode'));
  };

  const failed = on && camera === 'off';
  return (
    <section className="scanner" aria-label={t('scan.label')}>
      <div className={`viewfinder ${failed ? 'off' : on ? camera : 'idle'}${read ? ' read' : ''}`}>
        <video ref={video} muted playsInline aria-hidden="true" />
        {on && camera === 'on' && <div className="frame" aria-hidden="true" />}
        {on && read && <p className="badge">{t('scan.read')}</p>}
        {!on && <button type="button" className="turn-on" onClick={onTurnOn}>{t('scan.turnOn')}</button>}
      </div>
      {failed ? <p className="note">{t('scan.noCamera')}</p> : on && !read && <p className="hint">{t('scan.hint')}</p>}
      {children}
      {photoProblem && <p className="refusal" role="alert">{photoProblem}</p>}
      <label className={`photo ${failed ? 'primary big' : 'secondary small'}`}>
        {t('action.photo')}
        <input type="file" accept="image/*" capture="environment" onChange={(e) => void photo(e.target.files?.[0])} />
      </label>
    </section>
  );
}
