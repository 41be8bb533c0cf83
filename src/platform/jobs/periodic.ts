// Housekeeping that every instance runs on a timer (purges, sweeps): at start and then every
// `everyMs`, one run at a time (a tick while a run is in progress is skipped), a failure logged
// and tried again at the next tick, the timer never keeping the process alive, and stop()
// waiting for the run in progress. Work that must run once across instances is a durable job
// instead (leases.ts).
import type { Logger } from 'pino';

export interface PeriodicOptions {
  everyMs: number;
  /** The work of one run; `signal` is aborted by stop(), so a long run can end early. */
  task: (signal: AbortSignal) => Promise<void>;
  logger: Logger;
  /** The log line of a failed run. */
  failure: string;
  /** The level of that line (default `error`). */
  level?: 'warn' | 'error';
  /** Also run at start (default true); false waits for the first tick. */
  atStart?: boolean;
}

export class Periodic {
  private readonly o: PeriodicOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = new AbortController();

  constructor(o: PeriodicOptions) {
    this.o = o;
  }

  start(): void {
    if (this.timer) return;
    this.stopping = new AbortController();
    if (this.o.atStart !== false) this.run();
    this.timer = setInterval(() => this.run(), this.o.everyMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for the run in progress, if any. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    await this.running;
  }

  private run(): void {
    this.running ??= this.o.task(this.stopping.signal)
      .catch((err: unknown) => this.o.logger[this.o.level ?? 'error']({ err }, this.o.failure))
      .finally(() => {
        this.running = undefined;
      });
  }
}
