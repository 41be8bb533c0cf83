// Pages that say why there is no screen: not built into the console yet, or no such page.
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';

export function Pending() {
  const { t } = useTranslation();
  return <Result status="info" title={t('pending.title')} subTitle={t('pending.text')} />;
}

export function NotFound() {
  const { t } = useTranslation();
  return <Result status="404" title="404" subTitle={t('error.notFound')} />;
}
