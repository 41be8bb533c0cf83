// The worker app's punch machinery, one per tab: the queue (IndexedDB) sending through the API,
// and the worker's latest recorded event, remembered on the phone so that the clock screen knows
// the state also when it opens without a network.
import { api, call } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { idbStore } from './idb.ts';
import { PunchQueue, type EventType, type Punch } from './queue.ts';

export interface ClockReply {
  message: string;
  timestamp: string;
  eventType: EventType;
  late?: boolean | undefined;
  /** On a clock-in that starts a day too soon after the previous one ended. */
  warning?: { code: 'short_rest'; restMinutes: number; minRestMinutes: number } | undefined;
}

export interface Latest {
  eventType: EventType;
  /** ISO 8601. */
  at: string;
  siteName: string | null;
}

const send = (p: Punch): Promise<ClockReply> =>
  call(api.POST('/api/clock', {
    body: {
      userId: p.userId,
      eventType: p.eventType,
      qrCodeValue: p.qrCodeValue,
      latitude: p.latitude,
      longitude: p.longitude,
      clientEventId: p.clientEventId,
      capturedAt: p.capturedAt,
    },
  }));

export const queue = new PunchQueue<ClockReply>(idbStore(), send, (err) => (err instanceof ApiError ? err : null));

const key = (userId: number) => `fieldops.clock.latest.${userId}`;

export function rememberedLatest(userId: number): Latest | null {
  try {
    const raw = localStorage.getItem(key(userId));
    return raw ? (JSON.parse(raw) as Latest) : null;
  } catch {
    return null;
  }
}

export function remember(userId: number, latest: Latest | null): void {
  if (latest) localStorage.setItem(key(userId), JSON.stringify(latest));
  else localStorage.removeItem(key(userId));
}

/**
 * The worker's latest recorded event in force from the server (null: none), remembered. A punch a
 * correction voided or replaced stays in the history, marked, and does not count: the latest of a
 * few that is not voided.
 */
export async function fetchLatest(userId: number): Promise<Latest | null> {
  const recent = await call(api.GET('/api/worker/clock-history/{userId}', { params: { path: { userId }, query: { page: 1, limit: 20 } } }));
  const e = recent.find((x) => !x.voided);
  const latest = e ? { eventType: e.event_type, at: e.timestamp, siteName: e.siteName } : null;
  remember(userId, latest);
  return latest;
}
