// Sends the outbox's deliveries. Every instance runs one dispatcher; a delivery is claimed with
// FOR UPDATE SKIP LOCKED under a lease (locked_by, locked_until), so one instance sends it at a
// time. The lease outlasts the request timeout by a margin: a delivery whose lease expired was
// left by a crashed or stopped instance and goes back to pending (the attempt does not count).
//
// Life of a delivery: pending → processing → delivered (2xx) | pending again with
// next_attempt_at = now + back-off | failed, once an attempt fails after WEBHOOK_MAX_AGE_HOURS
// from its creation (so deliveries are retried for at least that long). Back-off: the n-th
// retry waits WEBHOOK_RETRY_BASE_MS × 2^(n−1), capped at WEBHOOK_RETRY_MAX_MS, plus up to 10 %
// jitter (5 s, 10 s, 20 s … 1 h by default). Deliveries of inactive endpoints wait.
//
// Delivery is at least once: a crash between the receiver's answer and the status update
// sends the delivery again, with the same X-Webhook-Id. All times come from the database.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../../../platform/db/database.ts';
import { postWebhook, signature } from './webhooks.http.ts';
import { WEBHOOK_CHANNEL } from './webhooks.outbox.ts';
import { unavailableIn } from '../../../platform/availability.ts';

export interface DispatcherOptions {
  db: Database;
  logger: Logger;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxAgeHours: number;
  pollMs: number;
  /** Days finished deliveries are kept; 0 keeps them. */
  retentionDays: number;
  allowPrivate: boolean;
  /** Deliveries claimed and sent at once. */
  batchSize?: number;
}

interface Claimed {
  id: number;
  endpoint_id: number;
  event: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
}

const LEASE_MARGIN_MS = 30_000;
const CLEANUP_EVERY_MS = 60 * 60_000;
const USER_AGENT = 'fieldops-webhooks/1.0';

/** Delay before the retry following failed attempt number `attempts` (1-based). */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempts - 1), 40));
  return Math.round(exp * (1 + random() * 0.1));
}

export class WebhookDispatcher {
  readonly instanceId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly o: Required<DispatcherOptions>;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly inFlight = new AbortController();
  private lastCleanup = 0;

  constructor(o: DispatcherOptions) {
    this.o = { batchSize: 10, ...o };
  }

  /** Runs the next poll now (new deliveries were committed). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      this.unlisten = await this.o.db.listen(WEBHOOK_CHANNEL, () => this.wake());
    } catch (err) {
      this.o.logger.warn({ err }, 'webhook dispatcher: LISTEN failed, polling only');
    }
    this.loopDone = this.loop();
  }

  /** Stops polling; requests in flight are aborted and their deliveries released at once. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.inFlight.abort(new Error('stopping'));
    this.wakeUp?.();
    await this.loopDone;
    await this.unlisten?.().catch(() => {});
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let sleepMs = this.o.pollMs;
      try {
        this.woken = false;
        await this.recoverExpired();
        if (Date.now() - this.lastCleanup >= CLEANUP_EVERY_MS) {
          this.lastCleanup = Date.now();
          await this.cleanup();
        }
        while (this.running && (await this.runOnce()) > 0) { /* drain what is due */ }
        if (this.running) sleepMs = await this.untilNextDue();
      } catch (err) {
        // An outage is logged once by the database's availability, not at every poll.
        if (this.running && !unavailableIn(err)) this.o.logger.error({ err }, 'webhook dispatcher poll failed');
      }
      if (!this.running) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Milliseconds until the earliest pending delivery is due, at most pollMs. */
  private async untilNextDue(): Promise<number> {
    const [row] = await this.o.db.query<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(d.next_attempt_at) - now()) * 1000)::float8 AS ms
       FROM timeclock.webhook_deliveries d JOIN timeclock.webhook_endpoints e ON e.id = d.endpoint_id AND e.is_active
       WHERE d.status = 'pending'`,
    );
    const ms = row?.ms === null || row?.ms === undefined ? this.o.pollMs : Number(row.ms);
    return Math.max(5, Math.min(this.o.pollMs, ms));
  }

  /** Claims the due deliveries (up to batchSize) and sends them; returns how many. */
  async runOnce(): Promise<number> {
    const leaseMs = this.o.timeoutMs + LEASE_MARGIN_MS;
    const claimed = await this.o.db.query<Claimed>(
      `UPDATE timeclock.webhook_deliveries d
       SET status = 'processing', attempts = d.attempts + 1, locked_by = $1,
           locked_until = now() + make_interval(secs => $2::double precision), updated_at = now()
       FROM (SELECT d2.id FROM timeclock.webhook_deliveries d2
             JOIN timeclock.webhook_endpoints e2 ON e2.id = d2.endpoint_id AND e2.is_active
             WHERE d2.status = 'pending' AND d2.next_attempt_at <= now()
             ORDER BY d2.next_attempt_at, d2.id
             LIMIT $3::int FOR UPDATE OF d2 SKIP LOCKED) due,
            timeclock.webhook_endpoints e
       WHERE d.id = due.id AND e.id = d.endpoint_id
       RETURNING d.id, d.endpoint_id, d.event, d.payload, d.attempts, e.url, e.secret`,
      [this.instanceId, leaseMs / 1000, this.o.batchSize],
    );
    await Promise.all(claimed.map((c) => this.deliver(c)));
    return claimed.length;
  }

  private async deliver(c: Claimed): Promise<void> {
    const id = Number(c.id);
    const attempts = Number(c.attempts);
    const sentAt = Math.floor(Date.now() / 1000);
    const result = await postWebhook(c.url, c.payload, {
      'user-agent': USER_AGENT,
      'x-webhook-id': String(id),
      'x-webhook-event': c.event,
      'x-webhook-attempt': String(attempts),
      'x-webhook-signature': signature(c.secret, c.payload, sentAt),
    }, { timeoutMs: this.o.timeoutMs, allowPrivate: this.o.allowPrivate, signal: this.inFlight.signal });
    try {
      if (!this.running && !result.ok) {
        // Aborted by stop(): another instance (or this one after a restart) sends it; not an attempt.
        await this.o.db.query(
          `UPDATE timeclock.webhook_deliveries SET status = 'pending', attempts = greatest(attempts - 1, 0),
             locked_by = NULL, locked_until = NULL, updated_at = now()
           WHERE id = $1 AND locked_by = $2 AND status = 'processing'`,
          [id, this.instanceId],
        );
        return;
      }
      if (result.ok) {
        await this.o.db.query(
          `UPDATE timeclock.webhook_deliveries SET status = 'delivered', delivered_at = now(), last_status_code = $3,
             last_error = NULL, locked_by = NULL, locked_until = NULL, updated_at = now()
           WHERE id = $1 AND locked_by = $2 AND status = 'processing'`,
          [id, this.instanceId, result.status],
        );
        return;
      }
      const delayMs = backoffMs(attempts, this.o.retryBaseMs, this.o.retryMaxMs);
      const [row] = await this.o.db.query<{ status: string }>(
        `UPDATE timeclock.webhook_deliveries
         SET status = CASE WHEN now() >= created_at + make_interval(hours => $5::int) THEN 'failed' ELSE 'pending' END,
             next_attempt_at = now() + make_interval(secs => $6::double precision),
             last_status_code = $3, last_error = $4, locked_by = NULL, locked_until = NULL, updated_at = now()
         WHERE id = $1 AND locked_by = $2 AND status = 'processing' RETURNING status`,
        [id, this.instanceId, result.status, result.error, this.o.maxAgeHours, delayMs / 1000],
      );
      const log = { delivery: id, endpoint: Number(c.endpoint_id), attempt: attempts, status: result.status, error: result.error };
      if (row?.status === 'failed') this.o.logger.warn(log, 'webhook delivery failed for good');
      else this.o.logger.info({ ...log, retryInMs: delayMs }, 'webhook delivery failed; will retry');
    } catch (err) {
      // The lease runs out and the delivery is retried.
      this.o.logger.error({ err, delivery: id }, 'recording a webhook attempt failed');
    }
  }

  /** Puts deliveries whose lease expired (their instance crashed or stopped) back to pending. */
  async recoverExpired(): Promise<number> {
    const rows = await this.o.db.query(
      `UPDATE timeclock.webhook_deliveries SET status = 'pending', attempts = greatest(attempts - 1, 0),
         locked_by = NULL, locked_until = NULL, updated_at = now()
       WHERE status = 'processing' AND locked_until < now() RETURNING id`,
    );
    if (rows.length > 0) this.o.logger.warn({ deliveries: rows.length }, 'recovered abandoned webhook deliveries');
    return rows.length;
  }

  /** Deletes finished deliveries older than retentionDays. */
  async cleanup(): Promise<number> {
    if (this.o.retentionDays === 0) return 0;
    const rows = await this.o.db.query(
      `DELETE FROM timeclock.webhook_deliveries WHERE id IN (
         SELECT id FROM timeclock.webhook_deliveries
         WHERE status IN ('delivered', 'failed') AND updated_at < now() - make_interval(days => $1::int)
         LIMIT 10000 FOR UPDATE SKIP LOCKED)
       RETURNING 1`,
      [this.o.retentionDays],
    );
    return rows.length;
  }
}
