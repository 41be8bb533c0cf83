// Dates and times in the worker's language.
import i18n from '../i18n/index.ts';

const sameDay = (a: Date, b: Date) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();

/** `08:02`, or `Mon 3 Mar, 08:02` when not today. */
export function when(iso: string): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString(i18n.language, { hour: '2-digit', minute: '2-digit' });
  return sameDay(d, new Date()) ? time : `${day(iso)} ${time}`;
}

export const time = (iso: string) => new Date(iso).toLocaleTimeString(i18n.language, { hour: '2-digit', minute: '2-digit' });

export const day = (iso: string) => new Date(iso).toLocaleDateString(i18n.language, { weekday: 'short', day: 'numeric', month: 'short' });

/** A calendar date (`YYYY-MM-DD`) with its year, in the reader's language. */
export const dateLabel = (date: string) => new Date(`${date}T12:00:00`).toLocaleDateString(i18n.language, { year: 'numeric', month: 'short', day: 'numeric' });

/** A calendar date (`YYYY-MM-DD`) with its weekday. */
export const dayLabel = (date: string) => new Date(`${date}T12:00:00`).toLocaleDateString(i18n.language, { weekday: 'short', month: 'short', day: 'numeric' });
