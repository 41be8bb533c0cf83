// Message localisation: en-US (default) and zh-CN, chosen by Accept-Language. Every text a
// client can read in an error (the entry's message, its detail, validation messages) is a key of
// the one catalogue per language in src/messages/, rendered in the request's language when
// the reply is sent; code builds `Msg` values, never sentences.
import { enUS, type MessageKey } from '../messages/en-US.ts';
import { zhCN } from '../messages/zh-CN.ts';

export const LOCALES = ['en-US', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export type { MessageKey };

export const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { 'en-US': enUS, 'zh-CN': zhCN };

/**
 * A message to render later, in the reader's language. A parameter may itself be a `Msg` (a
 * noun, a reason), a value written in each language (`InLanguages`: a record's name) or an array
 * of values, which is joined with the language's list separator.
 */
export class Msg {
  readonly key: MessageKey;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  constructor(key: MessageKey, params?: Record<string, unknown>) {
    this.key = key;
    this.params = params;
  }
  /** The stored form (JSON) of a message, for answers that are replayed later. */
  toJSON(): { key: MessageKey; params?: Record<string, unknown> } {
    return this.params ? { key: this.key, params: { ...this.params } } : { key: this.key };
  }
  /**
   * A message read back from its stored form (nested messages in its parameters too); a plain
   * string, stored before messages were keys, is kept as it is.
   */
  static fromJSON(value: unknown): Msg | undefined {
    if (typeof value === 'string') return new Msg('common.verbatim', { text: value });
    if (!isStoredMsg(value)) return undefined;
    const params = value.params && Object.fromEntries(Object.entries(value.params).map(([k, v]) => [k, isStoredMsg(v) ? Msg.fromJSON(v) : v]));
    return new Msg(value.key, params);
  }
}

function isStoredMsg(value: unknown): value is { key: MessageKey; params?: Record<string, unknown> } {
  return typeof value === 'object' && value !== null && 'key' in value && typeof value.key === 'string' && Object.hasOwn(enUS, value.key);
}

export const msg = (key: MessageKey, params?: Record<string, unknown>): Msg => new Msg(key, params);

/**
 * A value as written in each language, a parameter rendered in the reader's: the name of a
 * record whose name has translations (platform/translations.ts `named`), in an error's detail.
 */
export class InLanguages {
  readonly values: Readonly<Record<Locale, string>>;
  constructor(values: Record<Locale, string>) {
    this.values = values;
  }
}

/** Several messages as one: rendered as sentences joined by the language's separator. */
class Sentences {
  readonly items: readonly Msg[];
  constructor(items: readonly Msg[]) {
    this.items = items;
  }
}
export const sentences = (items: readonly Msg[]): Msg => new Msg('common.verbatim', { text: new Sentences(items) });

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

function renderValue(value: unknown, locale: Locale): string {
  if (value instanceof Msg) return translate(value, locale);
  if (value instanceof Sentences) return translate(value.items, locale);
  if (value instanceof InLanguages) return value.values[locale];
  if (Array.isArray(value)) return value.map((v) => renderValue(v, locale)).join(CATALOGUES[locale]['common.listSeparator']);
  return String(value);
}

/**
 * Renders a message (or a key with `params`), replacing `{name}` with its parameter; a list of
 * messages is rendered as sentences joined by the language's separator.
 */
export function translate(message: Msg | readonly Msg[] | MessageKey, locale: Locale, params?: Record<string, unknown>): string {
  if (Array.isArray(message)) return message.map((m) => translate(m, locale)).join(CATALOGUES[locale]['common.sentenceSeparator']);
  const m = typeof message === 'string' ? new Msg(message, params) : (message as Msg);
  if (m.key === 'common.country') return countryName(typeof m.params?.code === 'string' ? m.params.code : '', locale);
  const template = CATALOGUES[locale][m.key];
  const p = m.params;
  return p ? template.replace(/\{(\w+)\}/g, (whole, k: string) => (k in p ? renderValue(p[k], locale) : whole)) : template;
}

const regionNames = new Map<Locale, Intl.DisplayNames>();

/**
 * A country or region in `locale`, by its ISO 3166-1 alpha-2 code (`US`: "United States", "美国"):
 * the runtime's own names (Intl.DisplayNames, no catalogue entries); a code it does not know, as it is.
 */
export function countryName(code: string, locale: Locale): string {
  let names = regionNames.get(locale);
  if (!names) regionNames.set(locale, (names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' })));
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** A country as a message parameter, named in each reader's language when rendered (a stored notification too). */
export const countryMsg = (code: string): Msg => new Msg('common.country', { code });

/** A copy of `value` with every `Msg` in it rendered (structured error details). */
export function translateDeep(value: unknown, locale: Locale): unknown {
  if (value instanceof Msg) return translate(value, locale);
  if (Array.isArray(value)) return value.map((v) => translateDeep(v, locale));
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, translateDeep(v, locale)]));
  }
  return value;
}
