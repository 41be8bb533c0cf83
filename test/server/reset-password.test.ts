// `npm run reset-password` as an operator runs it: a real child process with the server's
// configuration. On PostgreSQL (+ Redis) the server keeps running and sees the reset at once;
// on the embedded database the command refuses while the server holds the folder, and runs
// once it is stopped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/platform/config.ts';
import { buildServer, type Server } from '../../src/server.ts';
import { ADMIN_PASSWORD, createDatabase, onPostgres, testEnv, withRedis } from '../helpers/app.ts';
import { call, login } from '../helpers/http.ts';
import { createWorker, managerToken, newDeviceUuid, workerLogin } from '../helpers/timeclock.ts';

const root = path.resolve(import.meta.dirname, '../..');

function resetPassword(env: Record<string, string>, args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli/reset-password.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

describe('npm run reset-password', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'fieldops-reset-'));
  const env = testEnv(dataDir, { LOGIN_MAX_FAILURES: '3' });
  let dropDatabase = async () => {};
  let server: Server | undefined;
  const open = async () => (server = await buildServer(loadConfig(env)));
  /** Runs commands as an operator would: beside the server on PostgreSQL, with it stopped on the embedded database. */
  async function commands<T>(run: () => Promise<T>): Promise<T> {
    if (onPostgres) return run();
    await server!.close();
    server = undefined;
    try {
      return await run();
    } finally {
      await open();
    }
  }

  before(async () => {
    if (onPostgres) {
      const db = await createDatabase();
      env.DATABASE_URL = db.url;
      dropDatabase = db.drop;
    }
    if (withRedis) {
      env.REDIS_URL = process.env.TEST_REDIS_URL!;
      env.REDIS_KEY_PREFIX = `t${randomBytes(5).toString('hex')}:`;
    }
    await open();
  });

  after(async () => {
    await server?.close();
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('an administrator and a worker get new passwords; their sessions end, their lockouts are cleared, the operation log says so', async () => {
    const adminToken = await login(server!);
    assert.equal((await call(server!, 'GET', '/api/admin/info', { token: adminToken })).status, 200);
    // Locked out by three wrong passwords: even the right one is refused now.
    for (let i = 0; i < 3; i += 1) await call(server!, 'POST', '/api/admin/login', { body: { username: 'admin', password: 'wrong-password' } });
    const locked = await call(server!, 'POST', '/api/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.equal(locked.status, 429);

    const worker = await createWorker(server!, await managerToken(server!));
    const device = newDeviceUuid();
    const workerToken = await workerLogin(server!, worker.username, worker.password, device);
    // The worker's name is locked the same way.
    for (let i = 0; i < 3; i += 1) await call(server!, 'POST', '/api/auth/login', { body: { username: worker.username, password: 'wrong-password', deviceUuid: device } });
    const workerLocked = await call(server!, 'POST', '/api/auth/login', { body: { username: worker.username, password: worker.password, deviceUuid: device } });
    assert.equal(workerLocked.body.code, 'ACCOUNT_LOCKED');

    if (!onPostgres) {
      const refused = await resetPassword(env, ['admin', 'admin']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /in use by process \d+ \(a running server\?\): stop it first/);
    }

    const [admin, workerReset] = await commands(async () => [
      await resetPassword(env, ['admin', 'ADMIN']),
      await resetPassword(env, ['timeclock', worker.username, '--stdin'], 'Fresh-worker-pass-1\n'),
    ]);
    assert.equal(admin.code, 0, admin.stderr);
    const newAdminPassword = /\n {4}(\S+)\n/.exec(admin.stdout)?.[1];
    assert.ok(newAdminPassword && newAdminPassword.length >= 16, admin.stdout);
    assert.match(admin.stdout, /New password of administrator "admin" \(shown once/);
    assert.match(admin.stdout, /1 session\(s\) ended; sign-in lockout cleared\./);

    assert.equal(workerReset.code, 0, workerReset.stderr);
    assert.match(workerReset.stdout, new RegExp(`Password of time-clock worker "${worker.username}" set from standard input`));
    assert.doesNotMatch(workerReset.stdout, /Fresh-worker-pass-1/);
    assert.match(workerReset.stdout, /; sign-in lockout cleared\./);

    const s = server!;
    // The old administrator token is refused.
    assert.equal((await call(s, 'GET', '/api/admin/info', { token: adminToken })).status, 401);
    assert.equal((await call(s, 'POST', '/api/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } })).status, 401);
    // Someone else chose it: the administrator replaces it before anything else, with the same session.
    const signed = await call(s, 'POST', '/api/admin/login', { body: { username: 'admin', password: newAdminPassword } });
    assert.equal(signed.body.data.must_change_password, true);
    const fresh = signed.body.data.token as string;
    assert.equal((await call(s, 'GET', '/api/admin/logs/operation', { token: fresh })).body.code, 10012);
    const chosen = 'Chosen-own-pass-91';
    const changed = await call(s, 'PUT', '/api/admin/password', { token: fresh, body: { old_password: newAdminPassword, password: chosen, password_confirmation: chosen } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const logs = await call(s, 'GET', '/api/admin/logs/operation?module=admin&action=reset_password', { token: fresh });
    assert.equal(logs.status, 200);
    assert.equal(logs.body.data.total, 1);
    const row = logs.body.data.list[0];
    assert.equal(row.method, 'CLI');
    assert.match(row.username, /^cli:/);
    assert.equal(row.admin_id, null);
    const timeclockLogs = await call(s, 'GET', '/api/admin/logs/operation?module=timeclock&action=reset_password', { token: fresh });
    assert.equal(timeclockLogs.body.data.total, 1);

    // The worker's token stops working within a second; the new password signs in on the bound device.
    let status = 0;
    for (let i = 0; i < 30 && status !== 401; i += 1) {
      status = (await call(s, 'GET', `/api/location/status/${worker.id}`, { token: workerToken })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401);
    const workerSignIn = await call(s, 'POST', '/api/auth/login', { body: { username: worker.username, password: 'Fresh-worker-pass-1', deviceUuid: device } });
    assert.equal(workerSignIn.status, 200);
    assert.equal(workerSignIn.body.mustChangePassword, true, 'the worker replaces the password the operator set before anything else');
    assert.equal((await call(s, 'GET', `/api/location/status/${worker.id}`, { token: workerSignIn.body.token })).status, 403);
  });

  test('an unknown account, a short password from standard input and a wrong service are refused, with nothing changed', async () => {
    const [unknown, short, wrong] = await commands(async () => [
      await resetPassword(env, ['admin', 'nobody-here']),
      await resetPassword(env, ['timeclock', 'manager', '--stdin'], 'short\n'),
      await resetPassword(env, ['payroll', 'admin']),
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no administrator is named "nobody-here"/);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /8 to 128 characters \(it has 5\)/);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /usage: npm run reset-password/);
    // The manager's password is unchanged.
    assert.ok(await managerToken(server!));
  });
});
