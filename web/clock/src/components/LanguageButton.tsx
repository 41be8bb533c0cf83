// Switches between zh-CN and en-US (remembered); labelled with the language it switches to.
import { useTranslation } from 'react-i18next';
import { setLanguage } from '../i18n/index.ts';

export function LanguageButton() {
  const { t, i18n } = useTranslation();
  return (
    <button type="button" className="link" lang={i18n.language === 'zh-CN' ? 'en' : 'zh'} onClick={() => setLanguage(i18n.language === 'zh-CN' ? 'en-US' : 'zh-CN')}>
      {t('action.language')}
    </button>
  );
}
