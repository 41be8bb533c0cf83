// Sends the outbox's deliveries. Every instance runs one dispatcher; a delivery is a durable job
// (platform/jobs/leases.ts) claimed under a lease (locked_by, locked_until), so one instance
// sends it at a time. The lease outlasts the request timeout by a margin: a delivery whose lease
// expired was left by a crashed or stopped instance and goes back to pending (the attempt does not count).
//
// Life of a delivery: pending → processing → delivered (2xx) | pending again with
// next_attempt_at = now + back-off | failed, once an attempt fails after WEBHOOK_MAX_AGE_HOURS
// from its creation (so deliveries are retried for at least that long). Back-off: the n-th
// retry waits WEBHOOK_RETRY_BASE_MS × 2^(n−1), capped at WEBHOOK_RETRY_MAX_MS, plus up to 10 %
// jitter (5 s, 10 s, 20 s … 1 h by default). Deliveries of inactive endpoints wait.
//
// Delivery is at least once: a crash between the receiver's answer and the status update
// sends the delivery again, with the same X-Webhook-Id. All times come from the database.
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../../../platform/db/database.ts';
import { backoffMs, LeaseTable, Poller, workerId } from '../../../platform/jobs/leases.ts';
import { postWebhook, signature } from './webhooks.http.ts';
import { WEBHOOK_CHANNEL } from '../../kernel/webhook-outbox.ts';
import type { Backlog } from '../../../platform/metrics.ts';

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
/** Every change of a delivery's state is dated (the deliveries log shows it, and the retention counts from it). */
const touched = () => ({ updated_at: sql`now()` });

export class WebhookDispatcher {
  readonly instanceId = workerId();
  private readonly o: Required<DispatcherOptions>;
  private readonly jobs: LeaseTable;
  private readonly poller: Poller;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly inFlight = new AbortController();

  /** Deliveries waiting (due or backing off) and being sent, and the oldest waiting one's age (metrics). */
  backlog(): Promise<Backlog> {
    return this.jobs.backlog(this.o.db.query);
  }

  constructor(o: DispatcherOptions) {
    this.o = { batchSize: 10, ...o };
    this.jobs = new LeaseTable({
      table: 'timeclock.webhook_deliveries',
      waiting: 'pending',
      running: 'processing',
      holder: 'locked_by',
      lease: { until: 'locked_until' },
      leaseMs: this.o.timeoutMs + LEASE_MARGIN_MS,
      attempts: 'attempts',
      due: 'next_attempt_at',
    });
    this.poller = new Poller({
      name: 'webhook dispatcher',
      logger: this.o.logger,
      pollMs: this.o.pollMs,
      cleanupEveryMs: CLEANUP_EVERY_MS,
      recover: () => this.recoverExpired(),
      cleanup: () => this.cleanup(),
      runOnce: () => this.runOnce(),
      nextDueMs: () => this.untilNextDue(),
    });
  }

  /** Runs the next poll now (new deliveries were committed). */
  wake(): void {
    this.poller.wake();
  }

  async start(): Promise<void> {
    if (this.poller.running) return;
    try {
      this.unlisten = await this.o.db.listen(WEBHOOK_CHANNEL, () => this.wake());
    } catch (err) {
      this.o.logger.warn({ err }, 'webhook dispatcher: LISTEN failed, polling only');
    }
    this.poller.start();
  }

  /** Stops polling; requests in flight are aborted and their deliveries released at once. */
  async stop(): Promise<void> {
    if (!this.poller.running) return;
    const stopped = this.poller.stop();
    this.inFlight.abort(new Error('stopping'));
    await stopped;
    await this.unlisten?.().catch(() => {});
  }

  /** Milliseconds until the earliest pending delivery is due (pollMs when none is). */
  private async untilNextDue(): Promise<number> {
    const [row] = await this.o.db.query<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(d.next_attempt_at) - now()) * 1000)::float8 AS ms
       FROM timeclock.webhook_deliveries d JOIN timeclock.webhook_endpoints e ON e.id = d.endpoint_id AND e.is_active
       WHERE d.status = 'pending'`,
    );
    return row?.ms === null || row?.ms === undefined ? this.o.pollMs : Number(row.ms);
  }

  /** Claims the due deliveries of active endpoints (up to batchSize) and sends them; returns how many. */
  async runOnce(): Promise<number> {
    const endpoint = (column: string) => `(SELECT e.${column} FROM timeclock.webhook_endpoints e WHERE e.id = job.endpoint_id) AS ${column}`;
    const claimed = await this.jobs.claim<Claimed>(this.o.db.query, this.instanceId, {
      limit: this.o.batchSize,
      where: sql`EXISTS (SELECT 1 FROM timeclock.webhook_endpoints e WHERE e.id = job.endpoint_id AND e.is_active)`,
      set: touched,
      returning: `id, endpoint_id, event, payload, attempts, ${endpoint('url')}, ${endpoint('secret')}`,
    });
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
      if (this.inFlight.signal.aborted && !result.ok) {
        // Aborted by stop(): another instance (or this one after a restart) sends it; not an attempt.
        await this.jobs.release(this.o.db.query, id, this.instanceId, touched);
        return;
      }
      if (result.ok) {
        await this.jobs.settle(this.o.db.query, id, this.instanceId, 'delivered', () => ({
          delivered_at: sql`now()`,
          last_status_code: sql`${result.status}`,
          last_error: sql`NULL`,
          ...touched(),
        }));
        return;
      }
      const delayMs = backoffMs(attempts, this.o.retryBaseMs, this.o.retryMaxMs);
      const status = await this.jobs.retry(this.o.db.query, id, this.instanceId, {
        delayMs,
        giveUp: sql`now() >= created_at + make_interval(hours => ${this.o.maxAgeHours}::int)`,
        failed: 'failed',
        set: () => ({ last_status_code: sql`${result.status}`, last_error: sql`${result.error}`, ...touched() }),
      });
      const log = { delivery: id, endpoint: Number(c.endpoint_id), attempt: attempts, status: result.status, error: result.error };
      if (status === 'failed') this.o.logger.warn(log, 'webhook delivery failed for good');
      else this.o.logger.info({ ...log, retryInMs: delayMs }, 'webhook delivery failed; will retry');
    } catch (err) {
      // The lease runs out and the delivery is retried.
      this.o.logger.error({ err, delivery: id }, 'recording a webhook attempt failed');
    }
  }

  /** Puts deliveries whose lease expired (their instance crashed or stopped) back to pending. */
  async recoverExpired(): Promise<number> {
    const rows = await this.jobs.recover(this.o.db.query, { set: touched });
    if (rows.length > 0) this.o.logger.warn({ deliveries: rows.length }, 'recovered abandoned webhook deliveries');
    return rows.length;
  }

  /** Deletes finished deliveries older than retentionDays. */
  async cleanup(): Promise<number> {
    if (this.o.retentionDays === 0) return 0;
    const rows = await this.jobs.retire(this.o.db.query, {
      where: sql`job.status IN ('delivered', 'failed') AND job.updated_at < now() - make_interval(days => ${this.o.retentionDays}::int)`,
      limit: 10_000,
    });
    return rows.length;
  }
}
