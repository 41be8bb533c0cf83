// Several instances on one PostgreSQL (and Redis): a session ended on one instance is
// refused on the others within a second, with Redis pub/sub or, without Redis, through
// PostgreSQL LISTEN/NOTIFY.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { closeAll, CLUSTER_MODES, clusterSkip, startWithSibling, within, type TestApp } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';

/** Polls until `token` is refused on `app` (1 s at most); the business code and the time taken. */
async function refusedWithin(app: TestApp, token: string, limitMs: number): Promise<{ ms: number; code: number | undefined }> {
  const hit = await within(limitMs, async () => {
    const res = await call(app, 'GET', '/api/admin/info', { token });
    return res.status === 401 ? (res.body.code as number) : undefined;
  });
  return { ms: hit?.ms ?? limitMs, code: hit?.value };
}

for (const { mode, label, overrides } of CLUSTER_MODES) {
  describe(`two instances sharing ${label}`, { skip: clusterSkip(mode) }, () => {
    const apps: TestApp[] = [];
    after(() => closeAll(...apps.reverse()));

    test('a kick-out on one instance is refused on the other within 1 second', async () => {
      const [one, two] = await startWithSibling(overrides);
      apps.push(one, two);
      assert.equal(one.platform.pubsub.kind, mode === 'redis' ? 'redis' : 'postgres');

      const victim = await login(one);
      const operator = await login(two);
      // The victim's session is cached as live on instance one.
      assert.equal((await call(one, 'GET', '/api/admin/info', { token: victim })).status, 200);

      const list = await call(two, 'GET', '/api/admin/online-admins?page_size=100', { token: operator });
      const target = list.body.data.list.find((s: any) => !s.is_current);
      assert.ok(target, 'the victim session is listed');
      const kicked = await call(two, 'DELETE', `/api/admin/online-admins/${target.token_id}`, { token: operator });
      assert.equal(kicked.status, 200);

      const { ms, code } = await refusedWithin(one, victim, 1000);
      assert.equal(code, 10004, `refused on the other instance (after ${ms} ms)`);
      assert.ok(ms <= 1000);
      assert.equal((await call(one, 'GET', '/api/admin/info', { token: operator })).status, 200);
    });

    test('a logout on one instance is refused on the other within 1 second', async () => {
      const [one, two] = apps as [TestApp, TestApp];
      const token = await login(one);
      assert.equal((await call(two, 'GET', '/api/admin/info', { token })).status, 200);
      assert.equal((await call(one, 'POST', '/api/admin/logout', { token })).status, 200);
      const { code } = await refusedWithin(two, token, 1000);
      assert.equal(code, 10004);
    });

    test('a refreshed token replaces the old one on every instance', async () => {
      const [one, two] = apps as [TestApp, TestApp];
      const old = await login(one);
      assert.equal((await call(two, 'GET', '/api/admin/info', { token: old })).status, 200);
      const refreshed = await call(one, 'POST', '/api/admin/refresh-token', { token: old });
      assert.equal(refreshed.status, 200);
      const { code } = await refusedWithin(two, old, 1000);
      assert.equal(code, 10004);
      assert.equal((await call(two, 'GET', '/api/admin/info', { token: refreshed.body.data.token })).status, 200);
    });

    test('a lockout counted on one instance holds on the other (the counts are in PostgreSQL)', async () => {
      const [one, two] = apps as [TestApp, TestApp];
      const username = `nobody-${mode}-${Date.now().toString(36)}`;
      for (let i = 0; i < 5; i++) {
        const target = i % 2 ? one : two;
        const res = await call(target, 'POST', '/api/admin/login', { body: { username, password: 'wrong-password' } });
        assert.equal(res.body.code, 10001);
      }
      const res = await call(one, 'POST', '/api/admin/login', { body: { username, password: 'wrong-password' } });
      assert.equal(res.body.code, 10006);
    });
  });
}
