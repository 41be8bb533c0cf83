// A menu's title as the reader sees it: the title from the server (what the Menus screen edits),
// except that a seeded menu whose title was never changed shows the console's translation of it.
// "Never changed" means the title is still the seeded English one (the `menu` strings of en-US).
import type { TFunction } from 'i18next';
import enUS from '../i18n/en-US.ts';

const SEEDED: Record<string, string> = enUS.menu;

export function menuTitle(m: { slug: string; title: string }, t: TFunction): string {
  return SEEDED[m.slug] === m.title ? t(`common:menu.${m.slug}`, { defaultValue: m.title }) : m.title;
}
