// Whether a dependency (the database, Redis) can be used right now, and what its callers do
// when it cannot: they are answered at once instead of waiting for it.
//
// Every call to the dependency runs as an operation. While the dependency is available, an
// operation that has waited a third of `timeoutMs` without the dependency answering anything
// since it started makes a probe run (one cheap round trip on a connection of its own, limited
// to a third of `timeoutMs`); an operation that fails with a connection error makes one run at
// once. A failed probe declares an outage: every operation in flight is rejected with
// ServiceUnavailable (and told so, to stop before it commits anything), and new ones are
// refused at once, until a probe (every RECOVERY_PROBE_MS meanwhile, each allowed the whole
// `timeoutMs`, as it usually opens a new connection; where there is a pool, a round trip on each
// of its connections: see `recover`) succeeds again. So a
// caller waits at most about `timeoutMs` for a stopped, frozen or unreachable dependency, and
// the service is usable again within RECOVERY_PROBE_MS of the dependency's return.
import type { Logger } from 'pino';

/** A dependency the request needs cannot be used now (503 in the service's envelope). */
export class ServiceUnavailable extends Error {
  override name = 'ServiceUnavailable';
  readonly dependency: string;
  constructor(dependency: string, reason: string) {
    super(`${dependency} unavailable: ${reason}`);
    this.dependency = dependency;
  }
}

/** The ServiceUnavailable `err` is or wraps (Drizzle wraps driver errors in its own, as `cause`). */
export function unavailableIn(err: unknown): ServiceUnavailable | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof ServiceUnavailable) return e;
  }
  return undefined;
}

/** One call to the dependency, from its start until it settles. */
export interface Operation {
  /** Set once an outage was declared while it ran: it must not go on to commit anything. */
  readonly abandoned: boolean;
}

interface Tracked extends Operation {
  abandoned: boolean;
  readonly startedAt: number;
  readonly onAbandon: (err: ServiceUnavailable) => void;
}

export interface AvailabilityOptions {
  /** `database`, `redis`: names the dependency in errors and log lines. */
  name: string;
  /** One cheap round trip, on a connection of its own where there is one (SELECT 1, PING). */
  probe: () => Promise<unknown>;
  /**
   * The probe during an outage, when given: a round trip on each of the callers' own
   * connections (a pool's), so that the service is declared back only once they answer (a
   * connection the outage left dead fails here, and is replaced, rather than under the first
   * callers), and a connection of the probe's own stuck in an attempt to connect cannot hold
   * the recovery back.
   */
  recover?: () => Promise<unknown>;
  /** Longest a caller waits for an unresponsive dependency before it is refused. */
  timeoutMs: number;
  /** Errors that say the dependency cannot be reached (rather than that a statement was wrong). */
  isConnectionError: (err: unknown) => boolean;
  /** The label an operation's error is counted under in `errorCounts` (a SQLSTATE); undefined: not counted. */
  errorLabel?: (err: unknown) => string | undefined;
  logger: Logger;
}

const RECOVERY_PROBE_MS = 250;
const TICK_MS = 100;

export class Availability {
  readonly name: string;
  private readonly opts: AvailabilityOptions;
  private readonly suspectMs: number;
  private up = true;
  /** In start order: the first is the oldest. */
  private readonly ops = new Set<Tracked>();
  private probing: Promise<boolean> | undefined;
  /** The probe's round trip in flight, possibly outliving the probe that started it. */
  private pending: { answer: Promise<unknown>; since: number } | undefined;
  private lastProbeAt = 0;
  /** When the dependency last answered anything (an operation settled, a probe succeeded). */
  private lastAnswerAt = Date.now();
  private downSince = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly listeners = new Set<(available: boolean) => void>();
  /** Operations that failed, by `errorLabel` (`connection` for the dependency unreachable), since start (metrics). */
  readonly errorCounts = new Map<string, number>();

  constructor(opts: AvailabilityOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.suspectMs = Math.max(50, Math.floor(opts.timeoutMs / 3));
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  get available(): boolean {
    return this.up;
  }

  /** Operations started and not settled (running or waiting for a connection); abandoned ones are not counted. */
  get inFlight(): number {
    return this.ops.size;
  }

  /** Called with the new state at each change (an outage declared, the dependency back). */
  onChange(listener: (available: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts an operation: refused at once (ServiceUnavailable) during an outage. `onAbandon` is
   * called if an outage is declared before `end()`; `end(err)` with the operation's error, if any.
   */
  begin(onAbandon: (err: ServiceUnavailable) => void): Operation & { end(err?: unknown): void } {
    if (!this.up) throw this.unavailable();
    const op: Tracked = { abandoned: false, startedAt: Date.now(), onAbandon };
    this.ops.add(op);
    return Object.assign(op, {
      end: (err?: unknown) => {
        if (!this.ops.delete(op)) return;
        if (err !== undefined && this.opts.isConnectionError(err)) void this.probe();
        else this.lastAnswerAt = Date.now();
      },
    });
  }

  /**
   * Runs `work` as one operation: refused at once during an outage, rejected as soon as one is
   * declared while it runs (`work` goes on in the background; `op.abandoned` tells it to stop),
   * and its connection errors reported as ServiceUnavailable.
   */
  async run<T>(work: (op: Operation) => Promise<T>): Promise<T> {
    let abandon!: (err: ServiceUnavailable) => void;
    const abandoned = new Promise<never>((_, reject) => (abandon = reject));
    const op = this.begin((err) => abandon(err));
    let promise: Promise<T>;
    try {
      promise = work(op);
    } catch (err) {
      op.end(err);
      throw this.failed(err);
    }
    promise.catch(() => {}); // settles after the race when abandoned
    try {
      const result = await Promise.race([promise, abandoned]);
      op.end();
      return result;
    } catch (err) {
      op.end(err);
      throw this.failed(err);
    }
  }

  /** The error an operation ends with, counted, and translated. */
  private failed(err: unknown): unknown {
    const translated = this.translate(err);
    const label = translated instanceof ServiceUnavailable ? 'connection' : this.opts.errorLabel?.(err);
    if (label !== undefined) this.errorCounts.set(label, (this.errorCounts.get(label) ?? 0) + 1);
    return translated;
  }

  /** Something the dependency answered (a statement inside a transaction): it is alive. */
  answered(): void {
    this.lastAnswerAt = Date.now();
  }

  /** A connection error as ServiceUnavailable; anything else as it is. */
  translate(err: unknown): unknown {
    if (err instanceof ServiceUnavailable || !this.opts.isConnectionError(err)) return err;
    return new ServiceUnavailable(this.name, err instanceof Error ? err.message : String(err));
  }

  /** Readiness: false at once during an outage; otherwise a probe's answer. */
  async check(): Promise<boolean> {
    if (!this.up) return false;
    return this.probe();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private unavailable(): ServiceUnavailable {
    return new ServiceUnavailable(this.name, `not answering since ${new Date(this.downSince).toISOString()}`);
  }

  private tick() {
    if (this.probing) return;
    const now = Date.now();
    if (!this.up) {
      if (now - this.lastProbeAt >= RECOVERY_PROBE_MS) void this.probe();
      return;
    }
    const oldest = this.ops.values().next().value;
    if (oldest === undefined) return;
    const waited = now - Math.max(oldest.startedAt, this.lastAnswerAt);
    if (now - oldest.startedAt >= this.suspectMs && waited >= this.suspectMs && now - this.lastProbeAt >= this.suspectMs) {
      void this.probe();
    }
  }

  /**
   * One probe at a time; true when the dependency answered in time: within a third of the
   * timeout while it is available, within the whole timeout during an outage. A recovery probe
   * is often the first connection to a dependency that has just come back (a new server process
   * to start, authentication), which on a loaded machine took 1 to 4.5 s, longer than a round
   * trip: limited to a third of the timeout, it failed again and again, each new probe queued
   * behind the previous one on the probe's connection, and the service stayed refused seconds
   * (once 31 s) after the dependency was ready.
   */
  private probe(): Promise<boolean> {
    this.probing ??= (async () => {
      this.lastProbeAt = Date.now();
      const limitMs = this.up ? this.suspectMs : this.opts.timeoutMs;
      let failure: unknown;
      let timer: NodeJS.Timeout | undefined;
      try {
        const limit = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs);
        });
        await Promise.race([this.up || !this.opts.recover ? this.call() : this.recovering(), limit]);
      } catch (err) {
        failure = err;
      } finally {
        clearTimeout(timer);
      }
      this.lastProbeAt = Date.now();
      if (failure === undefined) {
        this.lastAnswerAt = this.lastProbeAt;
        if (!this.up) this.recovered();
        return true;
      }
      if (this.up) this.outage(failure);
      return false;
    })().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /** `recover`, its late failure (after the probe's limit) handled. */
  private recovering(): Promise<unknown> {
    const recovering = this.opts.recover!();
    recovering.catch(() => {});
    return recovering;
  }

  /**
   * The probe's round trip. One that outlived its probe's limit is not repeated while it may
   * still be answered (for up to the timeout): the next probe waits for the same one instead of
   * queueing another behind it, and its late answer ends an outage at once.
   */
  private call(): Promise<unknown> {
    if (this.pending && Date.now() - this.pending.since <= this.opts.timeoutMs) return this.pending.answer;
    const answer = this.opts.probe();
    const pending = { answer, since: Date.now() };
    this.pending = pending;
    answer.then(
      () => {
        if (this.pending === pending) this.pending = undefined;
        this.lastAnswerAt = Date.now();
        // A late answer during an outage: a probe at once (which recovers the callers' connections).
        if (!this.up && !this.probing) void this.probe();
      },
      () => {
        if (this.pending === pending) this.pending = undefined;
      },
    );
    return answer;
  }

  private outage(cause: unknown) {
    this.up = false;
    this.downSince = Date.now();
    const err = this.unavailable();
    this.opts.logger.error({ err: cause, dependency: this.name, in_flight: this.ops.size }, `${this.name} unreachable: requests that need it are answered 503 until it is back`);
    const abandoned = [...this.ops];
    this.ops.clear();
    for (const op of abandoned) {
      op.abandoned = true;
      op.onAbandon(err);
    }
    for (const listener of this.listeners) listener(false);
  }

  private recovered() {
    this.up = true;
    this.opts.logger.warn({ dependency: this.name, down_ms: Date.now() - this.downSince }, `${this.name} reachable again`);
    for (const listener of this.listeners) listener(true);
  }
}
