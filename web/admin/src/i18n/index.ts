// Languages of the console (the kit's bootstrap, web/shared/i18n.ts): en-US and zh-CN. Dates in
// pickers and formatted dates (month and weekday names, first day of the week) follow the choice.
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { addStrings, initI18n } from '../../../shared/i18n.ts';
import type { KitStrings } from '../../../shared/kitStrings.ts';
import enUS from './en-US.ts';
import zhCN from './zh-CN.ts';

export { addStrings, LANGUAGES, setLanguage, type Language } from '../../../shared/i18n.ts';

const i18n = initI18n({
  storageKey: 'fieldops.admin.language',
  common: { 'en-US': enUS, 'zh-CN': zhCN },
  onLanguage: (language) => dayjs.locale(language === 'zh-CN' ? 'zh-cn' : 'en'),
});

// The kit's screens and messages in the console's words.
const kit = (c: typeof enUS): KitStrings => ({ state: c.state, action: c.action, field: c.field, error: c.error, tree: c.tree });
addStrings('kit', { 'en-US': kit(enUS), 'zh-CN': kit(zhCN) });

export default i18n;
