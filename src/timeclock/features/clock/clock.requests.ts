// The client event id of a punch (see clock.service.ts's header): the first request for
// (worker, id) claims the pair in timeclock.clock_requests with its outcome, and a request
// that finds it taken answers what was stored, or 409 CLIENT_EVENT_ID_REUSED for another body.
import type { Static } from 'typebox';
import type { Executor } from '../../../platform/db/database.ts';
import { AppError, type ErrorDef } from '../../../platform/http/errors.ts';
import { msg, Msg } from '../../../platform/i18n.ts';
import type { EVENT_TYPES } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { Caller } from '../../kernel/auth.ts';
import type { ClockBody, ClockReply as ClockReplySchema } from './clock.schema.ts';

export type EventType = (typeof EVENT_TYPES)[number];
export type ClockInput = Static<typeof ClockBody>;
export type ClockReply = Static<typeof ClockReplySchema>;

/** The body fields a replay must repeat exactly (capturedAt as an instant). */
export interface CanonicalRequest {
  eventType: EventType;
  qrCodeValue: string;
  latitude: number;
  longitude: number;
  notes: string | null;
  capturedAt: string | null;
}

/** A clock request, normalised. */
export interface Punch {
  input: ClockInput;
  caller: Caller;
  clientEventId: string | null;
  capturedAt: Date | null;
  request: CanonicalRequest;
  /** Whether the request used the offline fields: the reply and webhook then say more. */
  extended: boolean;
}

/** What `clock_requests` holds for a (worker, client event id). */
export interface StoredOutcome {
  request: CanonicalRequest;
  status: number | null;
  reply: ClockReply | StoredRefusal | null;
}

/** A refusal as stored: its detail is a message's stored form (`Msg.toJSON`), rendered again in the replay's language. */
export interface StoredRefusal {
  code: string;
  detail: unknown;
  details: Record<string, unknown>;
}

const ERROR_DEFS = new Map<string, ErrorDef>(Object.values(E).map((d) => [String(d.code), d]));

/** The stored answer for a request's client event id, or 409 when its body differs. */
export function replay(p: Punch, stored: StoredOutcome): ClockReply {
  const fields = (Object.keys(p.request) as (keyof CanonicalRequest)[]).filter((k) => stored.request[k] !== p.request[k]);
  if (fields.length > 0) {
    throw new AppError(E.CLIENT_EVENT_ID_REUSED, {
      detail: msg('timeclock.clock.clientEventIdReused', { clientEventId: p.clientEventId, fields }),
      details: { field: 'clientEventId', clientEventId: p.clientEventId, fields },
    });
  }
  if (stored.status === null || stored.reply === null) throw new Error('a clock request was read before its outcome was stored');
  if (stored.status === 200) return stored.reply as ClockReply;
  const refusal = stored.reply as StoredRefusal;
  const detail = Array.isArray(refusal.detail) ? refusal.detail.map((d) => Msg.fromJSON(d)).filter((d) => d !== undefined) : Msg.fromJSON(refusal.detail);
  throw new AppError(ERROR_DEFS.get(refusal.code) ?? E.INTERNAL_ERROR, { ...(detail ? { detail } : {}), details: refusal.details });
}

/**
 * Claims (worker, client event id) for this request: true when it was free. On PostgreSQL a
 * request whose pair another transaction holds waits here until that one ends (the primary
 * key), then finds it taken (committed) or free (rolled back). `outcome` is stored at once for a
 * refusal; a success stores it with `settle` before its transaction commits.
 */
export async function claim(tx: Executor, p: Punch, outcome: { status: number; reply: unknown } | null): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO timeclock.clock_requests (user_id, client_event_id, request, status, reply)
     VALUES ($1, $2, $3::jsonb, $4, $5::jsonb) ON CONFLICT (user_id, client_event_id) DO NOTHING RETURNING 1`,
    [p.input.userId, p.clientEventId, JSON.stringify(p.request), outcome?.status ?? null, outcome ? JSON.stringify(outcome.reply) : null],
  );
  return rows.length === 1;
}

export async function settle(tx: Executor, userId: number, clientEventId: string, status: number, reply: ClockReply, eventId: number): Promise<void> {
  await tx.query(
    `UPDATE timeclock.clock_requests SET status = $3, reply = $4::jsonb, event_id = $5 WHERE user_id = $1 AND client_event_id = $2`,
    [userId, clientEventId, status, JSON.stringify(reply), eventId],
  );
}

export async function lookup(exec: Executor, userId: number, clientEventId: string): Promise<StoredOutcome | undefined> {
  const [row] = await exec.query<{ request: CanonicalRequest; status: number | null; reply: StoredOutcome['reply'] }>(
    `SELECT request, status, reply FROM timeclock.clock_requests WHERE user_id = $1 AND client_event_id = $2`,
    [userId, clientEventId],
  );
  if (!row) return undefined;
  return {
    request: row.request,
    status: row.status,
    reply: row.reply,
  };
}
