// The names the time clock seeds in English: the default site (migrations/timeclock/0002_core.sql)
// and the first manager's full name (bootstrap.ts). Sites and managers are edited in one language
// (no `<field>_i18n`), so every reply shows these names in the reader's language while the row
// still holds the seeded value, and a name someone gave them as written in every language
// (src/platform/translations.ts, `seeded`). Saving the name a reader sees back unchanged keeps it seeded.
import type { Locale } from '../platform/i18n.ts';
import { seeded, seededText, seededWrite, type SeededText } from '../platform/translations.ts';
import type { Role } from './kernel/auth.ts';

export const DEFAULT_SITE_NAME: SeededText = { value: 'Default site', key: 'timeclock.seeded.defaultSite' };
export const FIRST_MANAGER_NAME: SeededText = { value: 'Manager', key: 'timeclock.seeded.manager' };

/** A site's name in `locale`: only the default site's seeded name is translated. */
export const siteName = (name: string, isDefault: boolean, locale: Locale): string => (isDefault ? seededText(name, DEFAULT_SITE_NAME, locale) : name);

/** A site's name as a message parameter, rendered in the reader's language with the reply. */
export const siteNameParam = (name: string, isDefault: boolean) => (isDefault ? seeded(name, DEFAULT_SITE_NAME) : name);

/** The site name to store when `sent` is written over `current` in `locale` (undefined: unchanged). */
export const siteNameWrite = (current: { name: string; isDefault: boolean }, sent: string, locale: Locale): string | undefined =>
  current.isDefault ? seededWrite(current.name, sent, DEFAULT_SITE_NAME, locale) : sent;

/** An account's full name in `locale`: only a manager's seeded name is translated (a worker may be called anything). */
export const personName = (fullName: string, role: Role, locale: Locale): string => (role === 'manager' ? seededText(fullName, FIRST_MANAGER_NAME, locale) : fullName);
