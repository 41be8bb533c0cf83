// Periodic housekeeping (platform/jobs/periodic.ts): a run at start and on every tick, one run at
// a time, failures logged and tried again, stop() ending the timer and waiting for the run in
// progress. The timer is node:test's mock clock, so nothing here waits for real time.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import { Periodic } from '../../src/platform/jobs/periodic.ts';

/** A logger whose lines are kept (parsed) in `lines`. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** A promise with its resolver, to hold a run open until the test releases it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Periodic', () => {
  test('runs at start and on every tick; atStart: false waits for the first tick', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { logger } = capturingLogger();
    let eager = 0;
    let lazy = 0;
    const a = new Periodic({ everyMs: 1000, logger, failure: 'a failed', task: async () => void eager++ });
    const b = new Periodic({ everyMs: 1000, logger, failure: 'b failed', atStart: false, task: async () => void lazy++ });
    a.start();
    b.start();
    assert.deepEqual([eager, lazy], [1, 0]);
    await settle();
    t.mock.timers.tick(1000);
    assert.deepEqual([eager, lazy], [2, 1]);
    await Promise.all([a.stop(), b.stop()]);
  });

  test('a tick while a run is in progress is skipped', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { logger } = capturingLogger();
    const held = gate();
    let runs = 0;
    const p = new Periodic({ everyMs: 1000, logger, failure: 'failed', task: async () => { runs++; await held.opened; } });
    p.start();
    t.mock.timers.tick(1000);
    t.mock.timers.tick(1000);
    assert.equal(runs, 1);
    held.open();
    await settle();
    t.mock.timers.tick(1000);
    assert.equal(runs, 2);
    await p.stop();
  });

  test('a failed run is logged at the chosen level and the next tick runs again', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { logger, lines } = capturingLogger();
    let runs = 0;
    const p = new Periodic({
      everyMs: 1000, logger, level: 'warn', failure: 'the purge failed',
      task: async () => {
        runs++;
        throw new Error('database down');
      },
    });
    p.start();
    await settle();
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [[40, 'the purge failed']]);
    t.mock.timers.tick(1000);
    await settle();
    assert.equal(runs, 2);
    assert.equal(lines.length, 2);
    await p.stop();
  });

  test('stop() aborts the run’s signal, waits for it to end and stops the ticks', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { logger } = capturingLogger();
    const events: string[] = [];
    let runs = 0;
    const p = new Periodic({
      everyMs: 1000, logger, failure: 'failed',
      task: async (signal) => {
        runs++;
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await settle();
        events.push('run ended');
      },
    });
    p.start();
    await p.stop();
    events.push('stopped');
    assert.deepEqual(events, ['run ended', 'stopped']);
    t.mock.timers.tick(5000);
    assert.equal(runs, 1);
  });
});
