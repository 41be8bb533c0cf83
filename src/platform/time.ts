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

export function formatDisplay(date: Date | null | undefined, tz: string): string | null {
  if (!date) return null;
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
