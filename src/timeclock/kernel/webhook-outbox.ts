// The webhook outbox: events are written as delivery rows in the transaction of the event
// itself (so a delivery exists if and only if the event was committed), one row per active
// endpoint subscribed to the event. The dispatcher (../features/webhooks/webhooks.dispatcher.ts) sends them.
import type { Executor } from '../../platform/db/database.ts';

export const WEBHOOK_EVENTS = ['worker.clock_in', 'worker.clock_out', 'security.violation', 'correction.requested', 'correction.decided', 'clock.reminder'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** NOTIFY channel that wakes every instance's dispatcher when deliveries were committed. */
export const WEBHOOK_CHANNEL = 'timeclock_webhooks';

/**
 * Queues `{ event, data }` for every active endpoint subscribed to `event`. Run it with the
 * caller's transaction: the rows (and the wake-up notification, which PostgreSQL delivers
 * only on commit) appear with the event or not at all.
 */
export async function enqueueWebhook(
  exec: Executor,
  event: WebhookEvent,
  data: Record<string, unknown>,
): Promise<void> {
  const payload = JSON.stringify({ event, data });
  // Raw: a CTE write (the rows and the wake-up in one round trip), on the clock's hot path.
  await exec.query(
    `WITH queued AS (
       INSERT INTO timeclock.webhook_deliveries (endpoint_id, event, payload)
       SELECT id, $1::text, $2::text FROM timeclock.webhook_endpoints WHERE is_active AND $1::text = ANY (events)
       RETURNING 1)
     SELECT pg_notify($3::text, '') FROM (SELECT count(*) AS n FROM queued) q WHERE q.n > 0`,
    [event, payload, WEBHOOK_CHANNEL],
  );
}
