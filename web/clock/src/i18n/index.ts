// Languages of the app (the kit's bootstrap, web/shared/i18n.ts): en-US and zh-CN.
import { initI18n } from '../../../shared/i18n.ts';
import enUS from './en-US.ts';
import zhCN from './zh-CN.ts';

export { addStrings, LANGUAGES, setLanguage, type Language } from '../../../shared/i18n.ts';

const i18n = initI18n({ storageKey: 'fieldops.clock.language', common: { 'en-US': enUS, 'zh-CN': zhCN } });

export default i18n;
