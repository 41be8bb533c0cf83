// Display times (`YYYY-MM-DD HH:mm:ss` in the configured zone) to and from instants.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string) {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz, hourCycle: 'h23',
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

function parts(date: Date, tz: string) {
  const p = Object.fromEntries(formatter(tz).formatToParts(date).map((x) => [x.type, x.value]));
  return p as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}

// A zone's offset changes at most once in any quarter of an hour, so the offset found at both
// ends of a quarter holds for every instant in it: lists format their stamps by arithmetic
// instead of one Intl call each (which cost a tenth of a list request's CPU).
const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;
const OFFSETS_MAX = 10_000;
const offsets = new Map<string, Map<number, number>>();

/** `tz`'s offset from UTC at `ms` (whole seconds; historical zones have odd ones), in ms. */
function offsetAt(ms: number, tz: string): number {
  const p = parts(new Date(ms), tz);
  const second = ms - (((ms % 1000) + 1000) % 1000);
  return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second) - second;
}

function quarterOffset(ms: number, tz: string): number | undefined {
  let zone = offsets.get(tz);
  if (!zone) offsets.set(tz, (zone = new Map()));
  const quarter = Math.floor(ms / QUARTER_MS);
  let offset = zone.get(quarter);
  if (offset === undefined) {
    const start = offsetAt(quarter * QUARTER_MS, tz);
    // NaN marks a quarter with a change in it: formatted the slow way.
    offset = start === offsetAt((quarter + 1) * QUARTER_MS - 1, tz) ? start : Number.NaN;
    if (zone.size >= OFFSETS_MAX) zone.clear();
    zone.set(quarter, offset);
  }
  return Number.isNaN(offset) ? undefined : offset;
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

export function formatDisplay(date: Date | null | undefined, tz: string): string | null {
  if (!date) return null;
  const ms = date.getTime();
  const offset = quarterOffset(ms, tz);
  const local = offset === undefined ? undefined : new Date(ms + offset);
  const year = local?.getUTCFullYear();
  if (local && year! >= 1000 && year! <= 9999) {
    return `${year}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  }
  const p = parts(date, tz);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** A row's `createdAt` and `updatedAt` as records show them: `created_at`, `updated_at` in `tz`. */
export function displayStamps(row: { createdAt: Date; updatedAt: Date }, tz: string): { created_at: string; updated_at: string } {
  return { created_at: formatDisplay(row.createdAt, tz)!, updated_at: formatDisplay(row.updatedAt, tz)! };
}

export const DISPLAY_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';

/** Parses `YYYY-MM-DD HH:mm:ss` as a wall-clock time in `tz`; null when it is not a real time. */
export function parseDisplay(text: string, tz: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(asUtc);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    return null;
  }
  // Offset of tz at that instant, applied twice to settle across DST changes.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const p = parts(new Date(guess), tz);
    const shown = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
    guess += asUtc - shown;
  }
  const result = new Date(guess);
  // A wall time skipped by a daylight-saving change does not exist.
  return formatDisplay(result, tz) === text ? result : null;
}

/** Adds calendar months (clamping the day), for "at most N months" range rules. */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** The local calendar date (`YYYY-MM-DD`) of an instant in `tz`. */
export function localDate(date: Date, tz: string): string {
  return (formatDisplay(date, tz) ?? '').slice(0, 10);
}

/** The local calendar day of an instant in `tz`, as days since 1970-01-01 (by arithmetic on the cached offset). */
export function localDayNumber(date: Date, tz: string): number {
  const ms = date.getTime();
  const offset = quarterOffset(ms, tz);
  return offset === undefined ? dayNumber(localDate(date, tz)) : Math.floor((ms + offset) / DAY_MS);
}

/**
 * `tz` when it is an IANA time zone, in the runtime's case when only the case differs
 * (`europe/berlin` → `Europe/Berlin`); an alias the runtime knows under an older name
 * (`Asia/Kathmandu`) is kept as written. Null when it is not a time zone.
 */
export function canonicalTimeZone(tz: string): string | null {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
  } catch {
    return null;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a `YYYY-MM-DD` calendar date; NaN when it is not a real date. */
export function dayNumber(date: string): number {
  const m = DATE.exec(date);
  if (!m) return Number.NaN;
  const ms = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!);
  return new Date(ms).toISOString().slice(0, 10) === date ? ms / DAY_MS : Number.NaN;
}

const dates = new Map<number, string>();
/** The `YYYY-MM-DD` calendar date of a day number (remembered: timesheets ask for the same days again and again). */
export function dateOfDay(day: number): string {
  let date = dates.get(day);
  if (date === undefined) {
    if (dates.size >= 10_000) dates.clear();
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    dates.set(day, date);
  }
  return date;
}

/** ISO weekday of a day number: 1 = Monday … 7 = Sunday. */
export const isoWeekday = (day: number): number => ((((day + 3) % 7) + 7) % 7) + 1;
