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
// feature keeps its schema and its API; every statement is Drizzle's `sql` template run on a
// `RawExec`, so that a claim can join the caller's transaction. Claims use FOR UPDATE SKIP LOCKED: concurrent workers never
// claim the same row and never wait for each other. All times come from the database's clock,
// so instances agree. Works the same on PGlite and PostgreSQL (plain SQL through `Database`).
// `Poller` is the worker loop around a table: recover, retire now and then, run what is due, sleep.
//
// No library: pg-boss (DESIGN §8) runs on both drivers, but it would bring a second job schema
// and a second polling loop, and the three tables would have to move into it, while they are
// also the API's data (export tasks are listed and downloaded by their owners, webhook
// deliveries are shown to managers, upload sessions answer the upload-status endpoint).
import { randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import { unavailableIn } from '../availability.ts';
import type { RawExec } from '../db/database.ts';
import { rendered } from '../db/statements.ts';
import type { Backlog } from '../metrics.ts';

/** A trusted SQL fragment (Drizzle's `sql` template: its values are bind parameters); the job's row is aliased `job` in every statement. */
export type Fragment = SQL;
/** Extra column assignments (column → SQL expression), built anew for each statement. */
export type Assignments = () => Record<string, SQL>;

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

/** A checked column (or table) name as SQL text. */
function ident(name: string, pattern = IDENT): SQL {
  if (!pattern.test(name)) throw new Error(`bad ${pattern === IDENT ? 'column' : 'table'} name ${name}`);
  return sql.raw(name);
}

/** `exec` of `query`, rendered as text with `$n` parameters. */
function run<T>(exec: RawExec, query: SQL): Promise<T[]> {
  const { text, params } = rendered(query);
  return exec<T>(text, params);
}

/** A state name as a literal (checked like a column name). */
const literal = (state: string) => {
  ident(state);
  return sql.raw(`'${state}'`);
};

const list = (parts: SQL[]) => sql.join(parts, sql`, `);

export class LeaseTable {
  private readonly name: string;
  private readonly table: SQL;
  private readonly key: SQL;
  private readonly status: SQL;
  private readonly waiting: string;
  private readonly running: string;
  private readonly holder: SQL;
  private readonly until: SQL | undefined;
  private readonly renewed: SQL | undefined;
  private readonly attempts: SQL | undefined;
  private readonly due: SQL | undefined;
  /** The lease's length as an SQL interval (a literal: it is a number from configuration). */
  private readonly interval: SQL;
  /** The text of `expired()`. */
  private readonly expiry: string;

  constructor(o: LeaseTableOptions) {
    this.table = ident(o.table, TABLE);
    if (!(o.leaseMs > 0) || !Number.isFinite(o.leaseMs)) throw new Error(`bad lease ${o.leaseMs}`);
    this.name = o.table;
    this.key = ident(o.key ?? 'id');
    this.status = ident(o.status ?? 'status');
    this.waiting = o.waiting;
    this.running = o.running;
    this.holder = ident(o.holder);
    this.until = 'until' in o.lease ? ident(o.lease.until) : undefined;
    this.renewed = 'renewed' in o.lease ? ident(o.lease.renewed) : undefined;
    this.attempts = o.attempts === undefined ? undefined : ident(o.attempts);
    this.due = o.due === undefined ? undefined : ident(o.due);
    const interval = `make_interval(secs => ${o.leaseMs / 1000})`;
    this.interval = sql.raw(interval);
    const lease = 'until' in o.lease ? o.lease.until : o.lease.renewed;
    this.expiry = 'until' in o.lease ? `(${lease} IS NULL OR ${lease} < now())` : `(${lease} IS NULL OR ${lease} < now() - ${interval})`;
  }

  /**
   * How many jobs wait and run, and the age of the oldest waiting one (metrics); `created` names
   * the column holding a job's creation time. The states are written as literals, so that the
   * tables' partial indexes on them serve the count.
   */
  async backlog(exec: RawExec, created = 'created_at'): Promise<Backlog> {
    const waiting = literal(this.waiting);
    const running = literal(this.running);
    const [row] = await run<{ waiting: number; running: number; oldest: number | null }>(exec, sql`
      SELECT count(*) FILTER (WHERE ${this.status} = ${waiting})::int AS waiting,
             count(*) FILTER (WHERE ${this.status} = ${running})::int AS running,
             extract(epoch FROM now() - min(${ident(created)}) FILTER (WHERE ${this.status} = ${waiting}))::float8 AS oldest
      FROM ${this.table} WHERE ${this.status} = ${waiting} OR ${this.status} = ${running}`);
    return { waiting: row?.waiting ?? 0, running: row?.running ?? 0, oldestWaitingSeconds: row?.oldest ?? null };
  }

  /** SQL text (no parameters): the row's lease has run out (for a running row; one without a lease time counts as expired). */
  expired(): string {
    return this.expiry;
  }

  private renewLease(): SQL {
    return this.until ? sql`${this.until} = now() + ${this.interval}` : sql`${this.renewed!} = now()`;
  }

  /** Giving the lease up: the holder is cleared, and a lease end with it (a last renewal stays, as a record). */
  private dropLease(): SQL[] {
    return [sql`${this.holder} = NULL`, ...(this.until ? [sql`${this.until} = NULL`] : [])];
  }

  private assign(set: Assignments | undefined): SQL[] {
    return Object.entries(set?.() ?? {}).map(([column, value]) => sql`${ident(column)} = ${value}`);
  }

  /** The row `key`, running and held by `holder`. */
  private held(key: unknown, holder: string): SQL {
    return sql`${this.key} = ${key} AND ${this.holder} = ${holder} AND ${this.status} = ${this.running}`;
  }

  private claimAssignments(holder: string, set: Assignments | undefined): SQL {
    return list([
      sql`${this.status} = ${this.running}`,
      sql`${this.holder} = ${holder}`,
      this.renewLease(),
      ...(this.attempts ? [sql`${this.attempts} = ${this.attempts} + 1`] : []),
      ...this.assign(set),
    ]);
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
    const filters = [sql`job.${this.status} = ${this.waiting}`];
    if (this.due) filters.push(sql`job.${this.due} <= now()`);
    if (o.where) filters.push(sql`(${o.where})`);
    const order = o.order !== undefined ? sql.raw(o.order) : this.due ? sql`job.${this.due}, job.${this.key}` : sql`job.${this.key}`;
    return run<T>(exec, sql`
      UPDATE ${this.table} AS job SET ${this.claimAssignments(holder, o.set)}
      WHERE ${this.key} IN (SELECT job.${this.key} FROM ${this.table} job WHERE ${sql.join(filters, sql` AND `)}
                            ORDER BY ${order} LIMIT ${o.limit ?? 1}::int FOR UPDATE SKIP LOCKED)
      RETURNING ${sql.raw(o.returning ?? '*')}`);
  }

  /** Claims the job `key` for `holder` if it is waiting, or running under an expired lease (taken over); false otherwise. */
  async take(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const rows = await run(exec, sql`
      UPDATE ${this.table} AS job SET ${this.claimAssignments(holder, set)}
      WHERE ${this.key} = ${key} AND (${this.status} = ${this.waiting} OR (${this.status} = ${this.running} AND ${sql.raw(this.expiry)}))
      RETURNING ${this.key}`);
    return rows.length > 0;
  }

  /** Whether `holder` still holds job `key`, locking its row until the end of the transaction of `exec`. */
  async holds(exec: RawExec, key: unknown, holder: string): Promise<boolean> {
    const rows = await run(exec, sql`SELECT 1 FROM ${this.table} AS job WHERE ${this.held(key, holder)} FOR UPDATE`);
    return rows.length > 0;
  }

  /** Renews the lease (a heartbeat), with `set` (progress); false when the job is no longer `holder`'s. */
  async renew(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const rows = await run(exec, sql`
      UPDATE ${this.table} AS job SET ${list([this.renewLease(), ...this.assign(set)])} WHERE ${this.held(key, holder)} RETURNING ${this.key}`);
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
    const rows = await run(exec, sql`
      UPDATE ${this.table} AS job SET ${list([sql`${this.status} = ${status}`, ...this.dropLease(), ...this.assign(set)])}
      WHERE ${this.held(key, holder)} RETURNING ${this.key}`);
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
    if (!this.due) throw new Error(`${this.name} has no due column to retry later`);
    const [row] = await run<{ status: string }>(exec, sql`
      UPDATE ${this.table} AS job
      SET ${list([
        sql`${this.status} = CASE WHEN ${o.giveUp} THEN ${o.failed} ELSE ${this.waiting} END`,
        sql`${this.due} = now() + make_interval(secs => ${o.delayMs / 1000}::double precision)`,
        ...this.dropLease(),
        ...this.assign(o.set),
      ])}
      WHERE ${this.held(key, holder)} RETURNING ${this.status} AS status`);
    return row?.status;
  }

  /** Gives job `key` back (its holder stops): waiting again, this claim not counted as an attempt; false when it was not `holder`'s. */
  async release(exec: RawExec, key: unknown, holder: string, set?: Assignments): Promise<boolean> {
    const rows = await run(exec, sql`
      UPDATE ${this.table} AS job SET ${list([sql`${this.status} = ${this.waiting}`, ...this.uncount(), ...this.dropLease(), ...this.assign(set)])}
      WHERE ${this.held(key, holder)} RETURNING ${this.key}`);
    return rows.length > 0;
  }

  private uncount(): SQL[] {
    return this.attempts ? [sql`${this.attempts} = greatest(${this.attempts} - 1, 0)`] : [];
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
    const filters = [sql`${this.status} = ${this.running}`, sql.raw(this.expiry)];
    if (o.where) filters.push(sql`(${o.where})`);
    const assignments: SQL[] = [];
    const { giveUp } = o;
    if (giveUp) {
      if (!this.attempts) throw new Error(`${this.name} has no attempts column to limit`);
      const exhausted = sql`${this.attempts} >= ${giveUp.maxAttempts}`;
      assignments.push(sql`${this.status} = CASE WHEN ${exhausted} THEN ${giveUp.status} ELSE ${this.waiting} END`);
      for (const [column, value] of Object.entries(giveUp.set?.() ?? {})) {
        assignments.push(sql`${ident(column)} = CASE WHEN ${exhausted} THEN ${value} ELSE ${ident(column)} END`);
      }
    } else {
      assignments.push(sql`${this.status} = ${this.waiting}`, ...this.uncount());
    }
    assignments.push(...this.dropLease(), ...this.assign(o.set));
    const rows = await run<{ key: number; status: string }>(exec, sql`
      UPDATE ${this.table} AS job SET ${list(assignments)} WHERE ${sql.join(filters, sql` AND `)} RETURNING ${this.key} AS key, ${this.status} AS status`);
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
    const change = o.mark === undefined ? sql`DELETE FROM ${this.table} AS job` : sql`UPDATE ${this.table} AS job SET ${this.status} = ${o.mark}`;
    const candidates = sql`SELECT job.${this.key} FROM ${this.table} job WHERE ${o.where}${o.order ? sql.raw(` ORDER BY ${o.order}`) : sql``}${
      o.limit === undefined ? sql`` : sql` LIMIT ${o.limit}::int`} FOR UPDATE SKIP LOCKED`;
    return run<T>(exec, sql`${change} WHERE ${this.key} IN (${candidates}) RETURNING ${o.returning === undefined ? this.key : sql.raw(o.returning)}`);
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
