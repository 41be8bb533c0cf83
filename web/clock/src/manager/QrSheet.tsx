// A QR code's sheet to print and post on site: the code large (drawn in the browser with
// `qrcode`, so it works offline), the site and the code's name. @media print hides the tools.
import { useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { LanguageButton } from '../components/LanguageButton.tsx';
import { messageOf } from '../../../shared/feedback.ts';

export default function QrSheet() {
  const { t } = useTranslation('manager');
  const { id = '' } = useParams();
  const qr = useQuery({ queryKey: ['qr', id], queryFn: () => call(api.GET('/api/managers/qr-codes/{id}', { params: { path: { id } } })) });
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    if (!qr.data) return;
    void QRCode.toDataURL(qr.data.id, { errorCorrectionLevel: 'M', margin: 2, width: 1024 }).then(setImage);
  }, [qr.data]);

  if (qr.isError) return <main className="qr-sheet"><p className="refusal" role="alert">{messageOf(qr.error, t)}</p></main>;
  if (!qr.data || !image) return <main className="qr-sheet"><p className="loading" role="status">{t('state.loading')}</p></main>;
  const q = qr.data;
  return (
    <main className="qr-sheet">
      <div className="qr-tools">
        <LanguageButton />
        <button type="button" className="primary" onClick={() => window.print()}>{t('action.print')}</button>
      </div>
      <h1>{q.siteName}</h1>
      <h2>{q.name}</h2>
      <img src={image} alt={`QR ${q.name}`} />
      <p className="qr-hint">{t('qr.sheetHint')}</p>
      <p className="qr-value">{q.id}</p>
      {!q.is_active && <p className="qr-inactive no-print" role="alert">{t('qr.sheetInactive')}</p>}
    </main>
  );
}
