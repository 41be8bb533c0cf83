// How dictionary types and items look in replies.
import { displayStamps } from '../../../platform/time.ts';
import type { DictionaryRow } from '../../db/schema.ts';
import type { Locale } from '../../../platform/i18n.ts';
import { everyLanguage, localized } from '../../../platform/translations.ts';

/** A dictionary row as a reader of `locale` sees it (name and description in their language, with every language's value). */
export function renderDictionary(r: DictionaryRow, tz: string, locale: Locale) {
  return {
    id: r.id,
    parent_id: r.parentId,
    name: localized(r.name, r.nameI18n, locale),
    name_i18n: everyLanguage(r.name, r.nameI18n),
    code: r.code,
    value: r.value,
    description: localized(r.description, r.descriptionI18n, locale),
    description_i18n: everyLanguage(r.description, r.descriptionI18n),
    status: r.status,
    sort: r.sort,
    ...displayStamps(r, tz),
  };
}
