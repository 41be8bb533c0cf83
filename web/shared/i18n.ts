// The languages of both clients, en-US and zh-CN: the choice is remembered, sets <html lang>, and
// is sent as Accept-Language (api/client.ts) so that the server's messages come in the same
// language. Each client starts it with its own strings (namespace `common`); screens add theirs as
// a namespace (addStrings) when they load.
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en-US', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

export type Strings = Record<Language, object>;

let storageKey = '';
let onLanguage: ((language: Language) => void) | undefined;

function initial(): Language {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(storageKey);
  if (stored === 'en-US' || stored === 'zh-CN') return stored;
  const browser = typeof navigator === 'undefined' ? '' : navigator.language;
  return browser.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en-US';
}

/** Starts i18next with the client's common strings; `language` also follows every change (dates, …). */
export function initI18n(options: { storageKey: string; common: Strings; onLanguage?: (language: Language) => void }) {
  storageKey = options.storageKey;
  onLanguage = options.onLanguage;
  void i18n.use(initReactI18next).init({
    resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { common: options.common[lng] }])),
    lng: initial(),
    fallbackLng: 'en-US',
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;
  onLanguage?.(i18n.language as Language);
  return i18n;
}

export function setLanguage(language: Language): void {
  localStorage.setItem(storageKey, language);
  document.documentElement.lang = language;
  onLanguage?.(language);
  void i18n.changeLanguage(language);
}

/** A screen's strings, as the namespace `ns` (the English ones are the fallback). */
export function addStrings(ns: string, strings: Strings): void {
  for (const lng of LANGUAGES) if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, strings[lng]);
}

export default i18n;
