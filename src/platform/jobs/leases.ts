// Durable jobs: the one mechanism behind export tasks, webhook deliveries and chunk merges.
// A job is a row of its feature's own table; a worker claims it by writing its id into the
// row's holder column under a lease (a time in the database after which the holder is taken
// for dead), renews the lease while it works (heartbeat), and settles, retries (with back-off)
// or releases it only while it still holds it. Rows whose lease ran out go back to waiting
// (stale recovery) or are taken over; finished rows are retired after their retention.
//
// Vocabulary, the same for every table: waiting → running (claim / take) → settled in a final
// state, or waiting again (retry after a back-off, release on stop, recover after an expired
// lease). Each table names its own columns and states (`LeaseTableOptions`), so that the
// feature keeps its schema and its API; every statement takes a `RawExec`, so that a claim can
// join the caller's transaction. Claims use FOR UPDATE SKIP LOCKED: concurrent workers never
// claim the same row and never wait for each other. All times come from the database's clock,
// so instances agree. Works the same on PGlite and PostgreSQL (plain SQL through `Database`).
// `Poller` is the worker loop around a table: recover, retire now and then, run what is due, sleep.
//
// No library: pg-boss (DESIGN §8) runs on both drivers, but it would bring a second job schema
// and a second polling loop, and the three tables would have to move into it, while they are
// also the API's data (export tasks are listed and downloaded by their owners, webhook
// deliveries are shown to managers, upload sessions answer the upload-status endpoint).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { unavailableIn } from '../availability.ts';
import type { RawExec } from '../db/database.ts';
import type { Backlog } from '../metrics.ts';

/** Adds a bind parameter to the statement being built and returns its placeholder (`$n`). */
export type Param = (value: unknown) => string;
/** A trusted SQL fragment whose values go through `p`; the job's row is aliased `job` in every statement. */
export type Fragment = (p: Param) => string;
/** Extra column assignments (column → SQL expression, values through `p`). */
export type Assignments = (p: Param) => Record<string, string>;

export interface LeaseTableOptions {
  /** `schema.table`. */
  table: string;
  /** The primary key column (default `id`). */
  key?: string;
  /** The status column (default `status`) and its states for a waiting and a running job. */
  status?: string;
  waiting: string;
  running: string;
  /** The column naming the lease's holder (a worker id, or a token of one operation). */
  holder: string;
  /**
   * Where the lease is kept: `until`, a column holding its end; or `renewed`, a column holding
   * its last renewal (the lease ends `leaseMs` later), for tables that record a heartbeat.
   */
  lease: { until: string } | { renewed: string };
  /** How long a claim or a renewal holds the lease (from configuration, never client input). */
  leaseMs: number;
  /** A column counting claims, when the table has one. */
  attempts?: string;
  /** A column holding the time before which a waiting job must not be claimed (back-off). */
  due?: string;
}

/** One worker process's holder id. */
export const workerId = () => `${process.pid}-${randomBytes(6).toString('hex')}`;

/** Delay before the retry following failed attempt number `attempts` (1-based): doubling from `baseMs`, capped at `maxMs`, plus up to 10 % jitter. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempts - 1), 40));
  return Math.round(exp * (1 + random() * 0.1));
}

const IDENT = /^[a-z_][a-z0-9_]*$/;
const TABLE = /^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/;

function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`bad column name ${name}`);
  return name;
}

/** A statement's bind parameters, numbered as they are added. */
function params(): { values: unknown[]; p: Param } {
  const values: unknown[] = [];
  return { values, p: (v) => `$${values.push(v)}` };
}

export class LeaseTable {
  private readonly table: string;
  private readonly key: string;
  private readonly status: string;
  private readonly waiting: string;
  private readonly running: string;
  private readonly holder: string;
  private readonly until: string | undefined;
  private readonly renewed: string | undefined;
  private readonly attempts: string | undefined;
  private readonly due: string | undefined;
  /** The lease's length as an SQL interval (a literal: it is a number from configuration). */
  private readonly interval: string;

  constructor(o: LeaseTableOptions) {
    if (!TABLE.test(o.table)) throw new Error(`bad table name ${o.table}`);
    if (!(o.leaseMs > 0) || !Number.isFinite(o.leaseMs)) throw new Error(`bad lease ${o.leaseMs}`);
    this.table = o.table;
    this.key = ident(o.key ?? 'id');
    this.status = ident(o.status ?? 'status');
    this.waiting = o.waiting;
    this.running = o.running;
    this.holder = ident(o.holder);
    this.until = 'until' in o.lease ? ident(o.lease.until) : undefined;
    this.renewed = 'renewed' in o.lease ? ident(o.lease.renewed) : undefined;
    this.attempts = o.attempts === undefined ? undefined : ident(o.attempts);
    this.due = o.due === undefined ? undefined : ident(o.due);
    this.interval = `make_interval(secs => ${o.leaseMs / 1000})`;
  }

  /**
   * How many jobs wait and run, and the age of the oldest waiting one (metrics); `created` names
   * the column holding a job's creation time. The states are written as literals, so that the
   * tables' partial indexes on them serve the count.
   */
  async backlog(exec: RawExec, created = 'created_at'): Promise<Backlog> {
    const waiting = `'${ident(this.waiting)}'`;
    const running = `'${ident(this.running)}'`;
    const [row] = await exec<{ waiting: number; running: number; oldest: number | null }>(
      `SELECT count(*) FILTER (WHERE ${this.status} = ${waiting})::int AS waiting,
              count(*) FILTER (WHERE ${this.status} = ${running})::int AS running,
              extract(epoch FROM now() - min(${ident(created)}) FILTER (WHERE ${this.status} = ${waiting}))::float8 AS oldest
       FROM ${this.table} WHERE ${this.status} = ${waiting} OR ${this.status} = ${running}`,
    );
    return { waiting: row?.waiting ?? 0, running: row?.running ?? 0, oldestWaitingSeconds: row?.oldest ?? null };
  }

  /** SQL: the row's lease has run out (for a running row; one without a lease time counts as expired). */
  expired(): string {
    const col = this.until ?? this.renewed!;
    return this.until ? `(${col} IS NULL OR ${col} < now())` : `(${col} IS NULL OR ${col} < now() - ${this.interval})`;
  }

  private renewLease(): string {
    return this.until ? `${this.until} = now() + ${this.interval}` : `${this.renewed!} = now()`;
  }

  /** Giving the lease up: the holder is cleared, and a lease end with it (a last renewal stays, as a record). */
  private dropLease(): string[] {
    return [`${this.holder} = NULL`, ...(this.until ? [`${this.until} = NULL`] : [])];
  }

  private assign(p: Param, set: Assignments | undefined): string[] {
    return Object.entries(set?.(p) ?? {}).map(([column, value]) => `${ident(column)} = ${value}`);
  }

  /** The row `key`, running and held by `holder`. */
  private held(p: Param, key: unknown, holder: string): string {
    return `${this.key} = ${p(key)} AND ${this.holder} = ${p(holder)} AND ${this.status} = ${p(this.running)}`;
  }

  private claimAssignments(p: Param, holder: string, set: Assignments | undefined): string {
    return [
      `${this.status} = ${p(this.running)}`,
      `${this.holder} = ${p(holder)}`,
      this.renewLease(),
      ...(this.attempts ? [`${this.attempts} = ${this.attempts} + 1`] : []),
      ...this.assign(p, set),
    ].join(', ');
  }

  /**
   * Claims up to `limit` waiting jobs that are due (and match `where`), oldest due first (or by
   * `order`), for `holder`: running, under a fresh lease, the claim counted. Returns `returning`
   * of the claimed rows.
   */
  async claim<T = Record<string, unknown>>(
    exec: RawExec,
    holder: string,
    o: { limit?: number; where?: Fragment; order?: string; set?: Assignments; returning?: string } = {},
  ): Promise<T[]> {
    const { values, p } = params();
    const filters = [`job.${this.status} = ${p(this.waiting)}`];
    if (this.due) filters.push(`job.${this.due} <= now()`);
    if (o.where) filters.push(`(${o.where(p)})`);
    const order = o.order ?? (this.due ? `job.${this.due}, job.${this.key}` : `job.${this.key}`);
    return exec<T>(
      `UPDATE ${this.table} AS job SET ${this.claimAssignments(p, holder, o.set)}
       WHERE ${this.key} IN (SELECT job.${this.key} FROM ${this.table} job WHERE ${filters.join(' AND ')}
                             ORDER BY ${order} LIMIT ${p(o.limit ?? 1)}::int FOR UPDATE SKIP LOCKED)
       RETURNING ${o.returning ?? '*'}`,
      values,
    );
  }

  /** Claims the job `key` for `holder` if it is waiting, or running under an expired lease (taken over); false otherwise. */
  async take(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const { values, p } = params();
    const rows = await exec(
      `UPDATE ${this.table} AS job SET ${this.claimAssignments(p, holder, set)}
       WHERE ${this.key} = ${p(key)} AND (${this.status} = ${p(this.waiting)} OR (${this.status} = ${p(this.running)} AND ${this.expired()}))
       RETURNING ${this.key}`,
      values,
    );
    return rows.length > 0;
  }

  /** Whether `holder` still holds job `key`, locking its row until the end of the transaction of `exec`. */
  async holds(exec: RawExec, key: unknown, holder: string): Promise<boolean> {
    const { values, p } = params();
    const rows = await exec(`SELECT 1 FROM ${this.table} AS job WHERE ${this.held(p, key, holder)} FOR UPDATE`, values);
    return rows.length > 0;
  }

  /** Renews the lease (a heartbeat), with `set` (progress); false when the job is no longer `holder`'s. */
  async renew(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const { values, p } = params();
    const rows = await exec(
      `UPDATE ${this.table} AS job SET ${[this.renewLease(), ...this.assign(p, set)].join(', ')} WHERE ${this.held(p, key, holder)} RETURNING ${this.key}`,
      values,
    );
    return rows.length > 0;
  }

  /**
   * Renews the lease every `everyMs` until the returned function is called; `onLost` is called
   * (once per renewal that finds it) when the job is no longer `holder`'s, `onError` when a
   * renewal fails (the next one tries again, well within the lease).
   */
  keepAlive(
    exec: RawExec,
    key: unknown,
    holder: string,
    o: { everyMs: number; set?: Assignments; onLost: () => void; onError: (err: unknown) => void },
  ): () => void {
    let stopped = false;
    const timer = setInterval(() => {
      this.renew(exec, key, holder, o.set).then((mine) => {
        if (!mine && !stopped) o.onLost();
      }, o.onError);
    }, o.everyMs);
    timer.unref();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }

  /** Moves job `key` to `status` (usually a final one), giving up the lease; false when it was not `holder`'s. */
  async settle(exec: RawExec, key: unknown, holder: string, status: string, set?: Assignments): Promise<boolean> {
    const { values, p } = params();
    const rows = await exec(
      `UPDATE ${this.table} AS job SET ${[`${this.status} = ${p(status)}`, ...this.dropLease(), ...this.assign(p, set)].join(', ')}
       WHERE ${this.held(p, key, holder)} RETURNING ${this.key}`,
      values,
    );
    return rows.length > 0;
  }

  /**
   * After a failed attempt: job `key` waits `delayMs` (the table's `due` column), or moves to
   * `failed` when `giveUp` holds. Returns the new status; undefined when it was not `holder`'s.
   */
  async retry(
    exec: RawExec,
    key: unknown,
    holder: string,
    o: { delayMs: number; giveUp: Fragment; failed: string; set?: Assignments },
  ): Promise<string | undefined> {
    if (!this.due) throw new Error(`${this.table} has no due column to retry later`);
    const { values, p } = params();
    const [row] = await exec<{ status: string }>(
      `UPDATE ${this.table} AS job
       SET ${[
         `${this.status} = CASE WHEN ${o.giveUp(p)} THEN ${p(o.failed)} ELSE ${p(this.waiting)} END`,
         `${this.due} = now() + make_interval(secs => ${p(o.delayMs / 1000)}::double precision)`,
         ...this.dropLease(),
         ...this.assign(p, o.set),
       ].join(', ')}
       WHERE ${this.held(p, key, holder)} RETURNING ${this.status} AS status`,
      values,
    );
    return row?.status;
  }

  /** Gives job `key` back (its holder stops): waiting again, this claim not counted as an attempt; false when it was not `holder`'s. */
  async release(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const { values, p } = params();
    const rows = await exec(
      `UPDATE ${this.table} AS job SET ${[`${this.status} = ${p(this.waiting)}`, ...this.uncount(), ...this.dropLease(), ...this.assign(p, set)].join(', ')}
       WHERE ${this.held(p, key, holder)} RETURNING ${this.key}`,
      values,
    );
    return rows.length > 0;
  }

  private uncount(): string[] {
    return this.attempts ? [`${this.attempts} = greatest(${this.attempts} - 1, 0)`] : [];
  }

  /**
   * Stale recovery: running jobs (matching `where`) whose lease ran out, their holder taken for
   * dead, go back to waiting. The abandoned claim counts as an attempt when `maxAttempts` is
   * given, and a job that reached it moves to `giveUp.status` with `giveUp.set`; otherwise it
   * does not count. Returns the recovered rows' keys and new statuses.
   */
  async recover(
    exec: RawExec,
    o: { where?: Fragment; set?: Assignments; giveUp?: { maxAttempts: number; status: string; set?: Assignments } } = {},
  ): Promise<Array<{ key: number; status: string }>> {
    const { values, p } = params();
    const filters = [`${this.status} = ${p(this.running)}`, this.expired()];
    if (o.where) filters.push(`(${o.where(p)})`);
    const assignments: string[] = [];
    const { giveUp } = o;
    if (giveUp) {
      if (!this.attempts) throw new Error(`${this.table} has no attempts column to limit`);
      const exhausted = `${this.attempts} >= ${p(giveUp.maxAttempts)}`;
      assignments.push(`${this.status} = CASE WHEN ${exhausted} THEN ${p(giveUp.status)} ELSE ${p(this.waiting)} END`);
      for (const [column, value] of Object.entries(giveUp.set?.(p) ?? {})) {
        assignments.push(`${ident(column)} = CASE WHEN ${exhausted} THEN ${value} ELSE ${column} END`);
      }
    } else {
      assignments.push(`${this.status} = ${p(this.waiting)}`, ...this.uncount());
    }
    assignments.push(...this.dropLease(), ...this.assign(p, o.set));
    const rows = await exec<{ key: number; status: string }>(
      `UPDATE ${this.table} AS job SET ${assignments.join(', ')} WHERE ${filters.join(' AND ')} RETURNING ${this.key} AS key, ${this.status} AS status`,
      values,
    );
    return rows.map((r) => ({ key: Number(r.key), status: r.status }));
  }

  /**
   * Retention: the rows matching `where` (at most `limit`, in `order`, skipping rows locked by a
   * concurrent retirement) are deleted, or moved to status `mark` for tables whose rows the API
   * keeps reporting. Returns `returning` of those rows.
   */
  async retire<T = Record<string, unknown>>(
    exec: RawExec,
    o: { where: Fragment; limit?: number; order?: string; returning?: string; mark?: string },
  ): Promise<T[]> {
    const { values, p } = params();
    const change = o.mark === undefined ? `DELETE FROM ${this.table} AS job` : `UPDATE ${this.table} AS job SET ${this.status} = ${p(o.mark)}`;
    const candidates = `SELECT job.${this.key} FROM ${this.table} job WHERE ${o.where(p)}${o.order ? ` ORDER BY ${o.order}` : ''}${
      o.limit === undefined ? '' : ` LIMIT ${p(o.limit)}::int`} FOR UPDATE SKIP LOCKED`;
    return exec<T>(`${change} WHERE ${this.key} IN (${candidates}) RETURNING ${o.returning ?? this.key}`, values);
  }
}

export interface PollerOptions {
  /** Named in the log line of a failed round. */
  name: string;
  logger: Logger;
  pollMs: number;
  cleanupEveryMs: number;
  recover: () => Promise<unknown>;
  cleanup: () => Promise<unknown>;
  /** Claims and runs what is due; truthy when it found something (the round runs it again). */
  runOnce: () => Promise<number | boolean>;
  /** Milliseconds until the next job is due, when sooner than pollMs. */
  nextDueMs?: () => Promise<number>;
}

/**
 * A worker's loop: each round recovers expired leases, retires old rows every cleanupEveryMs,
 * then runs jobs until none is due, and sleeps pollMs (or until the next is due, or `wake`).
 */
export class Poller {
  private readonly o: PollerOptions;
  private active = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private lastCleanup = 0;

  constructor(o: PollerOptions) {
    this.o = o;
  }

  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.loopDone = this.loop();
  }

  /** Runs the next round now (new jobs were committed). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Ends the loop after the current round; resolves when it has ended. */
  stop(): Promise<void> {
    this.active = false;
    this.wakeUp?.();
    return this.loopDone ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    const { o } = this;
    while (this.active) {
      let sleepMs = o.pollMs;
      try {
        this.woken = false;
        await o.recover();
        if (Date.now() - this.lastCleanup >= o.cleanupEveryMs) {
          this.lastCleanup = Date.now();
          await o.cleanup();
        }
        while (this.active && (await o.runOnce())) { /* drain what is due */ }
        if (this.active && o.nextDueMs) sleepMs = Math.max(5, Math.min(o.pollMs, await o.nextDueMs()));
      } catch (err) {
        // An outage is logged once by the database's availability, not at every poll.
        if (this.active && !unavailableIn(err)) o.logger.error({ err }, `${o.name} poll failed`);
      }
      if (!this.active) break;
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
}
