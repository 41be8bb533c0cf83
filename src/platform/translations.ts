// Text fields of records that administrators edit in several languages (a menu's title, a
// role's name, a department's name, a site's name...). A row keeps the field's value in the
// default language (en-US) in its own column, and the other languages' values in a JSON
// column `<field>_i18n` ({ "zh-CN": "..." }; a language without a value shows the default one).
//
// Replies give `<field>` in the reader's language (Accept-Language) and `<field>_i18n`, every
// language's own value (null: it shows the default language's), for edit forms. Writes take
// `<field>` as the value in the writer's language (what they see is what they edit: the
// translation of their language when the row has one, else the default value) and, optionally,
// `<field>_i18n` to set each language at once (null removes a translation).
//
// Rows that are edited in one language only (the time clock's sites and managers) have no
// `<field>_i18n`: what was seeded into them in the default language is shown in the reader's
// language from the message catalogue while the row still holds the seeded value (`seeded`,
// `seededText`); any other value is someone's own and is shown as written in every language.
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { Type, type TSchema } from 'typebox';
import { InLanguages, LOCALES, msg, translate, type Locale, type MessageKey, type Msg } from './i18n.ts';

export const DEFAULT_LOCALE: Locale = 'en-US';

/** The stored translations of one field: the languages other than the default one. */
export type Translations = Partial<Record<Locale, string>>;

/** A field's value in `locale`. */
export function localized(base: string, translations: Translations | null | undefined, locale: Locale): string {
  return (locale !== DEFAULT_LOCALE && translations?.[locale]) || base;
}

/** Every language's own value of a field: the default one, and the others' or null. */
export interface LanguageValues {
  'en-US': string;
  'zh-CN': string | null;
}

/** A field's value in every language, as a message parameter: a record named in the reader's language. */
export function named(base: string, translations: Translations | null | undefined): InLanguages {
  return new InLanguages(Object.fromEntries(LOCALES.map((l) => [l, localized(base, translations, l)])) as Record<Locale, string>);
}

/** Every language's own value of a field (null: shown in the default language's). */
export function everyLanguage(base: string, translations: Translations | null | undefined): LanguageValues {
  return { 'en-US': base, 'zh-CN': translations?.['zh-CN'] || null };
}

/** What a write body may carry for a field's languages. */
export type TranslationsInput = Partial<Record<Locale, string | null>>;

/**
 * The field's new default value and translations after a write, or undefined when the write
 * does not touch the field. `value` is the field as sent (in `locale`), `input` its `_i18n`
 * object; `current` the row's values (absent on create, where `value` is the default value).
 */
export function writeText(
  current: { base: string; translations: Translations | null } | undefined,
  value: string | undefined,
  input: TranslationsInput | undefined,
  locale: Locale,
): { base: string; translations: Translations } | undefined {
  if (value === undefined && input === undefined) return undefined;
  let base = current?.base ?? value ?? '';
  const translations: Translations = { ...(current?.translations ?? {}) };
  if (value !== undefined && current !== undefined) {
    if (locale === DEFAULT_LOCALE || !translations[locale]) base = value;
    else translations[locale] = value;
  }
  for (const l of LOCALES) {
    if (!input || !(l in input)) continue;
    const v = input[l];
    if (l === DEFAULT_LOCALE) {
      if (typeof v === 'string') base = v;
    } else if (v === null || v === undefined || v === '') {
      delete translations[l];
    } else {
      translations[l] = v;
    }
  }
  return { base, translations };
}

/** The reply's `<field>_i18n`: every language, described for the edit form. */
export function TranslationsReply(field: string) {
  return Type.Object({ 'en-US': Type.String(), 'zh-CN': Type.Union([Type.String(), Type.Null()]) } satisfies Record<Locale, TSchema>, {
    description: `\`${field}\` in each language: \`${DEFAULT_LOCALE}\` is the default value; another language's own value, or null when it shows the default one. \`${field}\` itself is in the reader's language (Accept-Language).`,
  });
}

/** A write body's optional `<field>_i18n`: `value` is the value's own schema (length, pattern). */
export function TranslationsBody<T extends TSchema>(field: string, value: T) {
  return Type.Object({ 'en-US': Type.Optional(value), 'zh-CN': Type.Optional(Type.Union([value, Type.Null()])) } satisfies Record<Locale, TSchema>, {
    additionalProperties: false,
    description: `\`${field}\` per language, each optional: \`${DEFAULT_LOCALE}\` sets the default value, another language its translation (null removes it). `
      + `Without it, \`${field}\` is the value in the writer's language (Accept-Language): the translation when the row has one in that language, else the default value.`,
  });
}

/** `column` or one of its translations (`i18n`) matches the ILIKE `pattern`. */
export function matchesTranslated(column: AnyColumn, i18n: AnyColumn, pattern: unknown): SQL {
  return sql`(${column} ILIKE ${pattern} OR EXISTS (SELECT 1 FROM jsonb_each_text(${i18n}) t WHERE t.value ILIKE ${pattern}))`;
}

/** A value seeded in the default language (by a migration or at start-up) and its catalogue key, which holds it in every language. */
export interface SeededText {
  value: string;
  key: MessageKey;
}

/**
 * A field's value for the reader: while it is still the seeded `value`, the catalogue's message
 * (rendered in the reader's language when the reply is sent, as in an error's detail); any other
 * value, a rename, as written: a translation never overrides it.
 */
export function seeded(value: string, seed: SeededText): string | Msg {
  return value === seed.value ? msg(seed.key) : value;
}

/** `seeded`, rendered in `locale`. */
export function seededText(value: string, seed: SeededText, locale: Locale): string {
  return value === seed.value ? translate(seed.key, locale) : value;
}

/**
 * The value to store when a writer sends `sent` for a field that holds `current`: unchanged
 * (undefined) when they sent back what they see of the untouched seeded value (an edit form
 * saved as it was, in any language), else `sent`.
 */
export function seededWrite(current: string, sent: string, seed: SeededText, locale: Locale): string | undefined {
  return current === seed.value && sent === seededText(current, seed, locale) ? undefined : sent;
}
