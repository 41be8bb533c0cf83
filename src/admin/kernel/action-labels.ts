// Human names, in the reader's language, of what an administrator can do (part of the access
// kernel): one per permission slug of the route table (`order.import` → "Import orders"), and
// one per self-service action the operation log records (`auth` / `password` → "Change own
// password"). The permission catalogue shows them next to each permission's stored name, and
// the operation log and the dashboard next to each row's raw `module` and `action`.
import { CATALOGUES, translate, type Locale, type MessageKey } from '../../platform/i18n.ts';

const keyOf = (slug: string) => `admin.action.${slug}`;

/** Whether the catalogue names `slug` (`<module>.<action>`). */
export function hasActionLabel(slug: string): boolean {
  return Object.hasOwn(CATALOGUES['en-US'], keyOf(slug));
}

/**
 * The name of `slug` (`<module>.<action>`, a permission slug or `auth.<path>`) in `locale`;
 * `fallback` (a custom permission's stored name), or the slug itself, when the catalogue has none.
 */
export function actionLabel(slug: string, locale: Locale, fallback?: string): string {
  return hasActionLabel(slug) ? translate(keyOf(slug) as MessageKey, locale) : fallback ?? slug;
}
