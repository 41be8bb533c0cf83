import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(() => app?.close());

test('the bootstrap administrator signs in and reads their profile', async () => {
  const token = await login(app);
  const res = await call(app, 'GET', '/api/admin/info', { token });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.username, 'admin');
});

test('runs on Node 24 or newer', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 24, process.versions.node);
});
