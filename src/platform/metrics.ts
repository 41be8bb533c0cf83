// Operational metrics in Prometheus's text format (prom-client), one registry per process.
// Off unless METRICS_TOKEN or METRICS_PORT is set (server.ts serves them); while off, nothing is
// counted and every recording call returns at once.
//
// What is measured where: requests and their durations by route and status (server.ts, one
// hook for both services); login failures and lockouts (the sign-in services); the database
// pool, statement errors and the availability of the database and Redis (read from the platform
// at scrape time); queue depths and the age of the oldest waiting job, open WebSockets (gauges
// the services register); Node.js process metrics (prom-client's defaults).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Availability } from './availability.ts';
import type { Database } from './db/database.ts';
import type { Storage } from './storage/storage.ts';

export type ServiceName = 'admin' | 'timeclock';

/** A durable queue's state (LeaseTable.backlog). */
export interface Backlog {
  waiting: number;
  running: number;
  /** Seconds since the oldest waiting job was created; null when none waits. */
  oldestWaitingSeconds: number | null;
}

/** Request durations, seconds: from a fast read to the 30 s statement timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly enabled: boolean;
  readonly registry = new Registry();
  private readonly requests: Counter<'service' | 'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'service' | 'method' | 'route' | 'status'>;
  private readonly loginFailures: Counter<'service' | 'reason'>;
  private readonly lockouts: Counter<'service'>;
  /** Label sets already seen, with their bound children (binding hashes the labels once). */
  private readonly children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();

  constructor(enabled: boolean) {
    this.enabled = enabled;
    const registers = [this.registry];
    this.requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by service, method, route template and status', labelNames: ['service', 'method', 'route', 'status'], registers });
    this.durations = new Histogram({ name: 'http_request_duration_seconds', help: 'Time from the request’s arrival to its response', labelNames: ['service', 'method', 'route', 'status'], buckets: DURATION_BUCKETS, registers });
    this.loginFailures = new Counter({ name: 'login_failures_total', help: 'Refused sign-ins, by service and reason', labelNames: ['service', 'reason'], registers });
    this.lockouts = new Counter({ name: 'login_lockouts_total', help: 'Accounts locked after repeated failures', labelNames: ['service'], registers });
    if (enabled) collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request; `route` is the route's template (never the raw path, whose ids would multiply the series). */
  request(service: string, method: string, route: string, status: number, seconds: number): void {
    if (!this.enabled) return;
    const key = `${service} ${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      const labels = { service, method, route, status: String(status) };
      const counter = this.requests.labels(labels);
      const histogram = this.durations.labels(labels);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      this.children.set(key, child);
    }
    child.count();
    child.observe(seconds);
  }

  loginFailure(service: ServiceName, reason: string): void {
    if (this.enabled) this.loginFailures.inc({ service, reason });
  }

  lockout(service: ServiceName): void {
    if (this.enabled) this.lockouts.inc({ service });
  }

  /** The database pool, its statement errors, and whether the database, Redis and an object store are usable, read at each scrape. */
  watchPlatform(db: Database, redis: Availability | undefined, storage: Storage): void {
    if (!this.enabled) return;
    const registers = [this.registry];
    new Gauge({
      name: 'db_pool_connections', help: 'Database connections: in use, requests waiting for one, and the pool size', labelNames: ['state'], registers,
      collect() {
        const pool = db.pool();
        this.set({ state: 'in_use' }, pool.active);
        this.set({ state: 'waiting' }, pool.waiting);
        this.set({ state: 'max' }, pool.max);
      },
    });
    new Counter({
      name: 'db_statement_errors_total', help: 'Database operations that failed, by SQLSTATE (`connection`: unreachable or in an outage)', labelNames: ['code'], registers,
      collect() {
        this.reset();
        for (const [code, n] of db.availability.errorCounts) this.inc({ code }, n);
      },
    });
    new Gauge({
      name: 'dependency_up', help: '1 while a dependency is usable, 0 during its outage', labelNames: ['dependency'], registers,
      collect() {
        this.set({ dependency: 'database' }, db.availability.available ? 1 : 0);
        if (redis) this.set({ dependency: 'redis' }, redis.available ? 1 : 0);
        if (storage.available !== undefined) this.set({ dependency: 'storage' }, storage.available ? 1 : 0);
      },
    });
  }

  /** A durable queue's depth and the age of its oldest waiting job, read at each scrape (skipped while the database is down). */
  watchQueue(queue: string, backlog: () => Promise<Backlog>): void {
    if (!this.enabled) return;
    const state = this.queueGauges();
    state.sources.set(queue, backlog);
  }

  /** A number read at each scrape (open WebSockets, say). */
  watchValue(name: string, help: string, read: () => number): void {
    if (!this.enabled) return;
    new Gauge({
      name, help, registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** Scrapes so far: collectors that read once per scrape tell them apart by it. */
  private scrapes = 0;

  async render(): Promise<string> {
    this.scrapes += 1;
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private queues: { sources: Map<string, () => Promise<Backlog>> } | undefined;

  private queueGauges() {
    if (this.queues) return this.queues;
    const sources = new Map<string, () => Promise<Backlog>>();
    const registers = [this.registry];
    // The three gauges are collected concurrently: the first to ask reads every queue once, and
    // the others of the same scrape share that reading.
    let reading: { scrape: number; done: Promise<Map<string, Backlog | null>> } | undefined;
    const readAll = () => {
      if (reading?.scrape !== this.scrapes) {
        reading = {
          scrape: this.scrapes,
          done: Promise.all([...sources].map(async ([queue, backlog]) => [queue, await backlog().catch(() => null)] as const)).then((e) => new Map(e)),
        };
      }
      return reading.done;
    };
    new Gauge({
      name: 'queue_scrape_errors', help: 'Queues whose state could not be read at this scrape (the database unreachable)', registers,
      async collect() {
        this.set([...(await readAll()).values()].filter((b) => b === null).length);
      },
    });
    new Gauge({
      name: 'queue_jobs', help: 'Jobs of a durable queue, by state (waiting, running)', labelNames: ['queue', 'state'], registers,
      async collect() {
        const read = await readAll();
        this.reset();
        for (const [queue, b] of read) {
          if (!b) continue;
          this.set({ queue, state: 'waiting' }, b.waiting);
          this.set({ queue, state: 'running' }, b.running);
        }
      },
    });
    new Gauge({
      name: 'queue_oldest_waiting_seconds', help: 'Age of the oldest waiting job (0 when none waits)', labelNames: ['queue'], registers,
      async collect() {
        const read = await readAll();
        this.reset();
        for (const [queue, b] of read) if (b) this.set({ queue }, b.oldestWaitingSeconds ?? 0);
      },
    });
    this.queues = { sources };
    return this.queues;
  }
}
