// The language of the console (and of the server's messages, sent as Accept-Language).
import { Segmented } from 'antd';
import { useTranslation } from 'react-i18next';
import { setLanguage, type Language } from '../i18n/index.ts';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <Segmented<Language>
      aria-label={t('layout.language')}
      size="small"
      value={i18n.language as Language}
      onChange={setLanguage}
      options={[{ value: 'en-US', label: 'EN' }, { value: 'zh-CN', label: '中文' }]}
    />
  );
}
