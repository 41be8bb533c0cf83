// Every route of both services keeps the access its declaration states, read from the route
// table the app itself builds (so a new route is covered as soon as it is declared): without a
// token a signed-in route is a 401, and a token lacking the route's permission (admin) or role
// (time clock: manager routes) is a 403, each in its service's error envelope; a restricted token
// (an authenticator to bind, a new password to choose) passes only its steps; and the OpenAPI
// document says so. The refusals come before input validation, so placeholder parameters do.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RouteOptions } from 'fastify';
import { ADMIN_PREFIX } from '../../src/admin/app.ts';
import { TIMECLOCK_PREFIX } from '../../src/timeclock/app.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertError } from '../helpers/assert.ts';
import { call, seedAdmin, signedInAdmin, type Reply } from '../helpers/http.ts';
import { assertTcError, createWorker, managerToken, newDeviceUuid, signedInWorker } from '../helpers/timeclock.ts';

interface Route {
  method: string;
  url: string;
  config: RouteOptions['config'];
}

const declared: RouteOptions[] = [];
let app: TestApp;
let adminWithoutGrants: string;
let bindingOnly: string;
let passwordOnly: string;
let worker: string;
let workerPasswordOnly: string;

before(async () => {
  app = await startApp({}, { onRoute: (route) => void declared.push(route) });
  adminWithoutGrants = (await signedInAdmin(app)).token;
  // Every permission, through a role that requires an authenticator, and none bound: a token good only for binding one.
  const bound = await seedAdmin(app);
  await app.platform.db.query('UPDATE admin.roles SET require_authenticator = true WHERE id = $1', [bound.roleId]);
  await app.platform.db.query('INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions', [bound.roleId]);
  const signed = await call(app, 'POST', '/api/admin/login', { body: { username: bound.username, password: bound.password } });
  assert.equal(signed.body.data.must_bind_authenticator, true);
  bindingOnly = signed.body.data.token;
  // Every permission, and a password someone else set: a token good only for choosing a new one.
  const told = await seedAdmin(app);
  await app.platform.db.query('UPDATE admin.admins SET must_change_password = true WHERE id = $1', [told.id]);
  await app.platform.db.query('INSERT INTO admin.role_permissions (role_id, permission_id) SELECT $1, id FROM admin.permissions', [told.roleId]);
  const changing = await call(app, 'POST', '/api/admin/login', { body: { username: told.username, password: told.password } });
  assert.equal(changing.body.data.must_change_password, true);
  passwordOnly = changing.body.data.token;
  const manager = await managerToken(app);
  worker = (await signedInWorker(app, manager)).token;
  const given = await createWorker(app, manager);
  await app.platform.db.query('UPDATE timeclock.users SET must_change_password = true WHERE id = $1', [given.id]);
  const workerSignIn = await call(app, 'POST', '/api/auth/login', { body: { username: given.username, password: given.password, deviceUuid: newDeviceUuid() } });
  assert.equal(workerSignIn.body.mustChangePassword, true);
  workerPasswordOnly = workerSignIn.body.token;
});
after(() => app?.close());

/** The routes of a service as declared (HEAD copies of GET routes and wildcards left out); read once the app is built. */
function routesOf(prefix: string): Route[] {
  return declared
    .filter((r) => r.url.startsWith(`${prefix}/`) && !r.url.includes('*'))
    .flatMap((r) => [r.method].flat().filter((m) => m !== 'HEAD').map((method) => ({ method, url: r.url, config: r.config })));
}

/** The route's URL with every parameter filled in; guards run before validation, so any value does. */
const concrete = (url: string) => url.replace(/:[A-Za-z_]+/g, '1');

const label = (r: Route) => `${r.method} ${r.url}`;

/** Sends each route a request and lists the routes whose reply fails `check`, with the reason. */
async function refusals(routes: Route[], token: string | undefined, check: (res: Reply) => void): Promise<string[]> {
  const failures: string[] = [];
  for (const r of routes) {
    const res = await call(app, r.method as 'GET', concrete(r.url), token ? { token } : {});
    try {
      check(res);
    } catch (err) {
      failures.push(`${label(r)}: ${(err as Error).message}`);
    }
  }
  return failures;
}

interface Operation {
  security?: unknown;
  responses: Record<string, unknown>;
}

/** The document's operation of each route (undefined when it is not documented). */
async function operations(docs: string, routes: Route[]): Promise<Map<Route, Operation | undefined>> {
  const doc = (await call(app, 'GET', docs)).body as { paths: Record<string, Record<string, Operation>> };
  return new Map(routes.map((r) => [r, doc.paths[r.url.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()]]));
}

describe('admin routes', () => {
  const signedIn = () => routesOf(ADMIN_PREFIX).filter((r) => r.config?.auth !== 'public');
  const guarded = () => signedIn().filter((r) => r.config?.permission);

  test('the route table is read from the app', () => {
    assert.ok(signedIn().length > 50, `${signedIn().length} signed-in admin routes`);
    assert.ok(guarded().length > 40, `${guarded().length} admin routes with a permission`);
  });

  test('every signed-in route refuses a request without a token: 401 10007', async () => {
    assert.deepEqual(await refusals(signedIn(), undefined, (res) => assertError(res, 401, 10007)), []);
  });

  test('every route with a permission refuses an administrator without it: 403 20001', async () => {
    assert.deepEqual(await refusals(guarded(), adminWithoutGrants, (res) => assertError(res, 403, 20001)), []);
  });

  const stepOf = (step: 'bind_authenticator' | 'change_password') => (r: Route) => r.config?.steps?.includes(step) === true;

  test('a token good only for binding an authenticator is refused by every signed-in route but the binding steps: 403 10011', async () => {
    const steps = signedIn().filter(stepOf('bind_authenticator')).map(label).sort();
    assert.deepEqual(steps, [
      'GET /api/admin/google-authenticator/qrcode', 'GET /api/admin/google-authenticator/status', 'POST /api/admin/google-authenticator/bind', 'POST /api/admin/logout',
    ]);
    assert.deepEqual(await refusals(signedIn().filter((r) => !stepOf('bind_authenticator')(r)), bindingOnly, (res) => assertError(res, 403, 10011)), []);
  });

  test('a token good only for choosing a new password is refused by every signed-in route but the password steps: 403 10012', async () => {
    const steps = signedIn().filter(stepOf('change_password')).map(label).sort();
    assert.deepEqual(steps, ['GET /api/admin/password/policy', 'POST /api/admin/logout', 'PUT /api/admin/password']);
    assert.deepEqual(await refusals(signedIn().filter((r) => !stepOf('change_password')(r)), passwordOnly, (res) => assertError(res, 403, 10012)), []);
  });

  test('the document shows each signed-in route’s bearer scheme and its 401 and 403', async () => {
    for (const [r, op] of await operations(`${ADMIN_PREFIX}/docs/openapi.json`, signedIn())) {
      assert.ok(op, `${label(r)} is documented`);
      assert.deepEqual(op.security, [{ bearer: [] }], label(r));
      assert.ok(op.responses['401'] && op.responses['403'], `${label(r)} documents 401 and 403`);
    }
  });

  test('the document shows the IP blacklist’s 403 on the public routes too', async () => {
    const documented = [...(await operations(`${ADMIN_PREFIX}/docs/openapi.json`, routesOf(ADMIN_PREFIX).filter((r) => r.config?.auth === 'public')))]
      .filter(([, op]) => op);
    assert.ok(documented.length >= 3, `${documented.length} public routes documented`);
    for (const [r, op] of documented) assert.ok(op!.responses['403'], `${label(r)} documents 403`);
  });
});

describe('time-clock routes', () => {
  const signedIn = () => routesOf(TIMECLOCK_PREFIX).filter((r) => r.config?.access === 'user' || r.config?.access === 'manager');
  const managers = () => signedIn().filter((r) => r.config?.access === 'manager');

  test('the route table is read from the app', () => {
    assert.ok(signedIn().length > 30, `${signedIn().length} signed-in time-clock routes`);
    assert.ok(managers().length > 20, `${managers().length} manager routes`);
  });

  test('every signed-in route refuses a request without a token: 401 TOKEN_INVALID', async () => {
    assert.deepEqual(await refusals(signedIn(), undefined, (res) => assertTcError(res, 401, 'TOKEN_INVALID')), []);
  });

  test('every manager route refuses a worker: 403 FORBIDDEN', async () => {
    assert.deepEqual(await refusals(managers(), worker, (res) => assertTcError(res, 403, 'FORBIDDEN')), []);
  });

  test('a token of an account that must choose a new password is refused by every signed-in route but the password steps: 403 PASSWORD_CHANGE_REQUIRED', async () => {
    const steps = signedIn().filter((r) => r.config?.passwordStep).map(label).sort();
    assert.deepEqual(steps, ['GET /api/me', 'GET /api/me/password-policy', 'PUT /api/me/password']);
    assert.deepEqual(
      await refusals(signedIn().filter((r) => !r.config?.passwordStep), workerPasswordOnly, (res) => assertTcError(res, 403, 'PASSWORD_CHANGE_REQUIRED')),
      [],
    );
  });

  test('the document shows each signed-in route’s bearer scheme and its 401, and the 403 of each route but the password steps', async () => {
    for (const [r, op] of await operations(`${TIMECLOCK_PREFIX}/docs/openapi.json`, signedIn())) {
      assert.ok(op, `${label(r)} is documented`);
      assert.deepEqual(op.security, [{ bearer: [] }], label(r));
      assert.ok(op.responses['401'], `${label(r)} documents 401`);
      if (r.config?.access === 'manager' || !r.config?.passwordStep) assert.ok(op.responses['403'], `${label(r)} documents 403`);
    }
  });
});
