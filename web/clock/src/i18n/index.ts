// Languages of the app: en-US and zh-CN. The choice is remembered, sets <html lang>, and is sent
// as Accept-Language. Screens add their own strings as a namespace (addStrings) when they load.
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import enUS from './en-US.ts';
import zhCN from './zh-CN.ts';

export const LANGUAGES = ['en-US', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

const KEY = 'fieldops.clock.language';

function initial(): Language {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  if (stored === 'en-US' || stored === 'zh-CN') return stored;
  const browser = typeof navigator === 'undefined' ? '' : navigator.language;
  return browser.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en-US';
}

void i18n.use(initReactI18next).init({
  resources: { 'en-US': { common: enUS }, 'zh-CN': { common: zhCN } },
  lng: initial(),
  fallbackLng: 'en-US',
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  returnNull: false,
});
if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

export function setLanguage(language: Language): void {
  localStorage.setItem(KEY, language);
  document.documentElement.lang = language;
  void i18n.changeLanguage(language);
}

/** A screen's strings, as the namespace `ns` (the English ones are the fallback). */
export function addStrings(ns: string, strings: { 'en-US': object; 'zh-CN': object }): void {
  for (const lng of LANGUAGES) if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, strings[lng]);
}

export default i18n;
