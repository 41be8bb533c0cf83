// What a notification points at (an export's file): a "Download" link that fetches it with the
// session's token (as the export dialog does), and until when it works, in the reader's time
// zone and language. Shown in the list screen and in the bell's dropdown.
import { DownloadOutlined } from '@ant-design/icons';
import { Button, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { download } from '../../api/client.ts';
import { useAction } from '../../../../shared/antd/feedback.tsx';

/** An ISO 8601 instant as the reader reads dates: their time zone, the console's language. */
export function readerTime(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function DownloadLink({ n }: { n: { title: string; kind: string; link: string | null; link_expires_at: string | null } }) {
  const { t, i18n } = useTranslation(['notifications', 'common']);
  const run = useAction();
  if (!n.link) return null;
  const link = n.link;
  return (
    <Space size={4} wrap className="notification-link">
      <Button
        type="link"
        size="small"
        icon={<DownloadOutlined />}
        style={{ paddingInline: 0 }}
        aria-label={`${t('download')}: ${n.title}`}
        onClick={() => void run(() => download(link, `${n.kind}-${link.split('/').filter(Boolean).slice(-2, -1)[0] ?? 'file'}`))}
      >
        {t('download')}
      </Button>
      {n.link_expires_at && <Typography.Text type="secondary">{t('availableUntil', { time: readerTime(n.link_expires_at, i18n.language) })}</Typography.Text>}
    </Space>
  );
}
