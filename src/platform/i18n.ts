// Message localisation: en-US (default) and zh-CN, chosen by Accept-Language.
export const LOCALES = ['en-US', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export type Messages = Record<Locale, string>;

/** Picks the best supported locale from an Accept-Language header (q-values honoured). */
export function pickLocale(header: string | string[] | undefined): Locale {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return 'en-US';
  const ranked = value
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN';
    if (tag === 'en' || tag.startsWith('en-') || tag === '*') return 'en-US';
  }
  return 'en-US';
}

/** Renders a message, replacing `{name}` with params.name. */
export function translate(messages: Messages, locale: Locale, params?: Record<string, unknown>): string {
  const template = messages[locale] ?? messages['en-US'];
  return params ? template.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m)) : template;
}
