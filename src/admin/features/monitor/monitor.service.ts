// Host and runtime figures for GET /monitor/system. CPU usage is measured over a short window
// (concurrent requests share one window); event-loop delay and GC pauses are collected in the
// background from start-up (the delay over a rolling window of about a minute).
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, type ELDHistogram } from 'node:perf_hooks';

export const CPU_SAMPLE_MS = 200;
const DELAY_WINDOW_MS = 60_000;

const round2 = (x: number) => Math.round(x * 100) / 100;
const percent = (part: number, whole: number) => (whole > 0 ? round2(Math.min(100, Math.max(0, (part / whole) * 100))) : 0);

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

export class SystemMonitor {
  private readonly dataDir: string;
  private readonly delay: ELDHistogram;
  private delaySince = Date.now();
  private lastDelay = { mean: 0, p99: 0, max: 0 };
  private readonly gc = { count: 0, totalMs: 0, lastMs: 0, maxMs: 0 };
  private readonly observer: PerformanceObserver;
  private cpuSample: Promise<number> | undefined;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
    this.delay = monitorEventLoopDelay({ resolution: 20 });
    this.delay.enable();
    this.observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        this.gc.count += 1;
        this.gc.totalMs += entry.duration;
        this.gc.lastMs = entry.duration;
        this.gc.maxMs = Math.max(this.gc.maxMs, entry.duration);
      }
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop() {
    this.delay.disable();
    this.observer.disconnect();
  }

  /** Busy share of all cores over CPU_SAMPLE_MS, in percent. */
  cpuUsage(): Promise<number> {
    this.cpuSample ??= (async () => {
      const a = cpuTimes();
      await new Promise((resolve) => setTimeout(resolve, CPU_SAMPLE_MS));
      const b = cpuTimes();
      const total = b.total - a.total;
      return percent(total - (b.idle - a.idle), total);
    })().finally(() => {
      this.cpuSample = undefined;
    });
    return this.cpuSample;
  }

  /** The file system holding DATA_DIR (its nearest existing ancestor if it does not exist yet). */
  async disk() {
    let dir = this.dataDir;
    for (;;) {
      try {
        const s = await statfs(dir);
        const total = s.blocks * s.bsize;
        const used = (s.blocks - s.bfree) * s.bsize;
        return { total, used, usage: percent(used, total) };
      } catch (err) {
        const parent = path.dirname(dir);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir) throw err;
        dir = parent;
      }
    }
  }

  private eventLoopDelay() {
    const h = this.delay;
    if (h.count > 0) {
      this.lastDelay = { mean: round2(h.mean / 1e6), p99: round2(h.percentile(99) / 1e6), max: round2(h.max / 1e6) };
    }
    if (Date.now() - this.delaySince >= DELAY_WINDOW_MS) {
      h.reset();
      this.delaySince = Date.now();
    }
    return this.lastDelay;
  }

  async snapshot() {
    const [usage, disk] = await Promise.all([this.cpuUsage(), this.disk()]);
    const total = os.totalmem();
    const used = total - os.freemem();
    const mem = process.memoryUsage();
    const delay = this.eventLoopDelay();
    const gc = this.gc;
    const avg = gc.count > 0 ? gc.totalMs / gc.count : 0;
    return {
      cpu: { cores: os.availableParallelism(), usage },
      memory: { total, used, usage: percent(used, total) },
      disk,
      runtime: {
        version: process.version,
        event_loop_delay: delay.mean,
        event_loop_delay_p99: delay.p99,
        event_loop_delay_max: delay.max,
        heap_used: mem.heapUsed,
        heap_total: mem.heapTotal,
        rss: mem.rss,
        uptime: Math.floor(process.uptime()),
        gc_count: gc.count,
        gc_pause: gc.count > 0 ? `last ${gc.lastMs.toFixed(2)} ms, avg ${avg.toFixed(2)} ms, max ${gc.maxMs.toFixed(2)} ms over ${gc.count} pauses` : 'no pauses yet',
      },
    };
  }
}
