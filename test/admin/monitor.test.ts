// GET /monitor/system: host CPU, memory and disk of DATA_DIR's file system, and the Node.js
// runtime block (in place of the contract's `go` block).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';
import { assertError, assertOk } from '../helpers/assert.ts';

let app: TestApp;
let superToken: string;

before(async () => {
  app = await startApp();
  superToken = await login(app);
});
after(() => app?.close());

const isPercent = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 100;

test('sane numbers for cpu, memory, disk and runtime', async () => {
  const started = Date.now();
  const data = assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: superToken }));
  assert.ok(Date.now() - started >= 150, 'CPU usage is sampled over a window');
  assert.deepEqual(Object.keys(data).sort(), ['cpu', 'disk', 'memory', 'runtime']);

  assert.ok(Number.isInteger(data.cpu.cores) && data.cpu.cores >= 1);
  assert.ok(isPercent(data.cpu.usage), String(data.cpu.usage));

  for (const part of [data.memory, data.disk]) {
    assert.ok(Number.isInteger(part.total) && part.total > 0);
    assert.ok(Number.isInteger(part.used) && part.used >= 0 && part.used <= part.total);
    assert.ok(isPercent(part.usage));
    assert.ok(Math.abs(part.usage - (part.used / part.total) * 100) < 0.01);
  }

  const rt = data.runtime;
  assert.equal(rt.version, process.version);
  assert.ok(typeof rt.event_loop_delay === 'number' && rt.event_loop_delay >= 0);
  assert.ok(rt.heap_used > 0 && rt.heap_total >= rt.heap_used);
  assert.ok(Number.isInteger(rt.uptime) && rt.uptime >= 0);
  assert.equal(typeof rt.gc_pause, 'string');
  assert.ok(rt.gc_pause.length > 0);
});

test('concurrent requests share one sampling window', async () => {
  const started = Date.now();
  const replies = await Promise.all(Array.from({ length: 5 }, () => call(app, 'GET', '/api/admin/monitor/system', { token: superToken })));
  for (const r of replies) assertOk(r);
  assert.ok(Date.now() - started < 2000);
});

test("needs 'monitor.system': 403 20001 without it, 200 with it", async () => {
  const without = await seedAdmin(app, { permissions: ['dashboard.view'] });
  const withIt = await seedAdmin(app, { permissions: ['monitor.system'] });
  assertError(await call(app, 'GET', '/api/admin/monitor/system', { token: await login(app, without.username, without.password) }), 403, 20001);
  assertOk(await call(app, 'GET', '/api/admin/monitor/system', { token: await login(app, withIt.username, withIt.password) }));
  assertError(await call(app, 'GET', '/api/admin/monitor/system'), 401, 10007);
});
