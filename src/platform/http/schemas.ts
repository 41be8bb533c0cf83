// Schemas shared by every list endpoint: paging, `order_by` allow-lists and time ranges.
import { Type, type TSchema } from 'typebox';
import { addMonths, DISPLAY_TIME_PATTERN, formatDisplay, parseDisplay } from '../time.ts';
import { InvalidInput } from './errors.ts';
import { msg } from '../i18n.ts';

export const PAGE_SIZE_MAX = 100;

export const PagingQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'page number, from 1' }),
  page_size: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: 10, description: `rows per page, 1..${PAGE_SIZE_MAX}` }),
};

export function offsetOf(q: { page: number; page_size: number }) {
  return (q.page - 1) * q.page_size;
}

/** `order_by` limited to `field:asc|desc` over the given fields. */
export function OrderByQuery<const F extends string>(fields: readonly F[], def: `${F}:${'asc' | 'desc'}`) {
  return Type.String({
    enum: fields.flatMap((f) => [`${f}:asc`, `${f}:desc`]),
    default: def,
    description: `sort as field:asc|desc; fields: ${fields.join(', ')}`,
  });
}

export function parseOrderBy<F extends string>(value: string): { field: F; direction: 'asc' | 'desc' } {
  const [field, direction] = value.split(':') as [F, 'asc' | 'desc'];
  return { field, direction };
}

export const DisplayTime = (description: string) =>
  Type.String({ pattern: DISPLAY_TIME_PATTERN, description: `${description}, YYYY-MM-DD HH:mm:ss`, examples: ['2026-01-31 23:59:59'] });

export const TimeRangeQuery = {
  start_time: Type.Optional(DisplayTime('from (inclusive)')),
  end_time: Type.Optional(DisplayTime('to (inclusive)')),
};

/**
 * Turns `start_time`/`end_time` into instants: impossible dates, a reversed range or one
 * longer than `maxMonths` are refused.
 */
export function parseTimeRange(
  q: { start_time?: string | undefined; end_time?: string | undefined },
  tz: string,
  maxMonths?: number,
): { from: Date | undefined; to: Date | undefined } {
  const from = q.start_time === undefined ? undefined : parseDisplay(q.start_time, tz);
  const to = q.end_time === undefined ? undefined : parseDisplay(q.end_time, tz);
  if (from === null) throw new InvalidInput(msg('platform.schemas.startTimeNotValid'), 'start_time');
  if (to === null) throw new InvalidInput(msg('platform.schemas.endTimeNotValid'), 'end_time');
  if (from && to && from > to) throw new InvalidInput(msg('platform.schemas.startTimeMustNot'), 'start_time');
  // Calendar months on the wall clock of the display zone: 03-01 00:00 to 06-01 00:00 is 3 months.
  if (maxMonths !== undefined && from && to && q.start_time && parseDisplay(formatDisplay(addMonths(parseDisplay(q.start_time, 'UTC')!, maxMonths), 'UTC')!, tz)! < to) {
    throw new InvalidInput(msg('platform.schemas.timeRangeMustNot', { maxMonths }), 'end_time');
  }
  return { from, to };
}

export const Nullable = <T extends TSchema>(schema: T, options?: { description?: string }) => Type.Union([schema, Type.Null()], options);
