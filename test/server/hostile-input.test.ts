// Hostile values in every request part of every route of both services, found by walking the
// services' own OpenAPI documents: a NUL character or an unpaired UTF-16 surrogate in any string
// (value or key), and a number that is not finite, are a 400 in the service's envelope naming
// the field, never a 500. Every numeric request field declares the range its column holds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { call, login, type Reply } from '../helpers/http.ts';
import { managerToken } from '../helpers/timeclock.ts';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; format?: string; anyOf?: Schema[]; items?: Schema; $ref?: string } & Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  parameters: { in: string; name: string; required?: boolean; example?: string | number; schema: Schema }[];
  body: Schema | undefined;
}

let app: TestApp;
const tokens: Record<'admin' | 'timeclock', string> = { admin: '', timeclock: '' };
const operations: Record<'admin' | 'timeclock', Operation[]> = { admin: [], timeclock: [] };

const DOCS = { admin: '/api/admin/docs/openapi.json', timeclock: '/api/docs/openapi.json' } as const;

before(async () => {
  app = await startApp();
  tokens.admin = await login(app);
  tokens.timeclock = await managerToken(app);
  for (const service of ['admin', 'timeclock'] as const) {
    const spec = (await call(app, 'GET', DOCS[service])).body as { paths: Record<string, Record<string, any>> };
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        operations[service].push({
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          body: op.requestBody?.content?.['application/json']?.schema,
        });
      }
    }
  }
});
after(() => app?.close());

const typesOf = (s: Schema | undefined): string[] => (s ? [s.type ?? [], ...(s.anyOf ?? []).map((x) => x.type ?? [])].flat() : []);

/** A value the parameter's schema accepts, for the parameters not under test. */
function plausible(s: Schema): string {
  if (typesOf(s).includes('integer') || typesOf(s).includes('number')) return '1';
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (typeof s.pattern === 'string' && new RegExp(s.pattern, 'u').test('1')) return '1';
  return 'x';
}

function urlOf(op: Operation, override: { name: string; in: string; value: string } | undefined): string {
  let url = op.path;
  const query: string[] = [];
  for (const p of op.parameters) {
    const value = override && override.name === p.name && override.in === p.in ? override.value : undefined;
    if (p.in === 'path') url = url.replace(`{${p.name}}`, value ?? encodeURIComponent(plausible(p.schema)));
    else if (p.in === 'query' && value !== undefined) query.push(`${p.name}=${value}`);
    // A required parameter not under test gets a value it accepts, so that only the one under test is wrong.
    else if (p.in === 'query' && p.required && p.schema.default === undefined) query.push(`${p.name}=${encodeURIComponent(String(p.example ?? plausible(p.schema)))}`);
  }
  return query.length > 0 ? `${url}?${query.join('&')}` : url;
}

function assertRefused(service: 'admin' | 'timeclock', res: Reply, what: string, field: string): void {
  const shown = `${what}: ${res.status} ${JSON.stringify(res.body)}`;
  assert.equal(res.status, 400, shown);
  if (service === 'admin') assert.equal(res.body.code, 30001, shown);
  else assert.equal(res.body.code, 'VALIDATION_ERROR', shown);
  assert.ok(res.body.message.includes(field), `the message names ${field}: ${shown}`);
}

const testable = (op: Operation) => !op.path.includes('/docs') && !op.path.endsWith('/ws/notifications');

for (const service of ['admin', 'timeclock'] as const) {
  describe(`${service}: hostile strings and numbers`, () => {
    test('a NUL or an unpaired surrogate in any query or path string is a 400 naming it', async () => {
      let tried = 0;
      for (const op of operations[service].filter(testable)) {
        for (const p of op.parameters.filter((x) => (x.in === 'query' || x.in === 'path') && typesOf(x.schema).includes('string'))) {
          for (const value of ['a%00b', '%ED%A0%80', '%00']) {
            // %ED%A0%80 is the UTF-8 form of U+D800; decoding it must not yield a lone surrogate that passes.
            const res = await call(app, op.method as never, urlOf(op, { name: p.name, in: p.in, value }), { token: tokens[service] });
            if (value === '%ED%A0%80') {
              assert.ok(res.status < 500, `${op.method} ${op.path} ${p.name}=${value}: ${res.status} ${JSON.stringify(res.body)}`);
              continue;
            }
            if (p.in === 'path' && res.status === 404) continue; // the router refuses the path before any route sees it
            // Without a body, a route that needs one refuses the (missing) body first: still a 400.
            assertRefused(service, res, `${op.method} ${op.path} ${p.in}.${p.name}=${value}`, op.body && p.in === 'query' ? '' : p.name);
            tried += 1;
          }
        }
      }
      assert.ok(tried > (service === 'admin' ? 30 : 5), `parameters tried: ${tried}`);
    });

    test('a NUL or an unpaired surrogate in a JSON body, as a value or as a key, is a 400 naming it', async () => {
      let tried = 0;
      for (const op of operations[service].filter((o) => testable(o) && o.body?.properties)) {
        const names = Object.keys(op.body!.properties!);
        const field = names.find((n) => typesOf(op.body!.properties![n]).includes('string')) ?? names[0]!;
        for (const payload of [`{"${field}":"a\\u0000b"}`, `{"${field}":"\\ud800"}`, `{"${field}":["\\udc00"]}`, '{"x\\u0000":1}']) {
          const res = await call(app, op.method as never, urlOf(op, undefined), {
            token: tokens[service],
            payload,
            headers: { 'content-type': 'application/json' },
          });
          assertRefused(service, res, `${op.method} ${op.path} ${payload}`, payload.startsWith('{"x') ? 'x\\u0000' : field);
          tried += 1;
        }
      }
      assert.ok(tried > (service === 'admin' ? 100 : 40), `bodies tried: ${tried}`);
    });

    test('a number that is not finite is a 400, in a query and in a body', async () => {
      let tried = 0;
      for (const op of operations[service].filter(testable)) {
        for (const p of op.parameters.filter((x) => x.in === 'query' && typesOf(x.schema).some((t) => t === 'number' || t === 'integer'))) {
          for (const value of ['Infinity', '1e309', '-1e400', 'NaN']) {
            const res = await call(app, op.method as never, urlOf(op, { name: p.name, in: p.in, value }), { token: tokens[service] });
            assertRefused(service, res, `${op.method} ${op.path} ${p.name}=${value}`, p.name);
            tried += 1;
          }
        }
        const numeric = Object.entries(op.body?.properties ?? {}).find(([, s]) => typesOf(s).some((t) => t === 'number' || t === 'integer'));
        if (numeric) {
          const res = await call(app, op.method as never, urlOf(op, undefined), {
            token: tokens[service],
            payload: `{"${numeric[0]}":1e400}`,
            headers: { 'content-type': 'application/json' },
          });
          assertRefused(service, res, `${op.method} ${op.path} body.${numeric[0]}=1e400`, numeric[0]);
          tried += 1;
        }
      }
      assert.ok(tried > 20, `numbers tried: ${tried}`);
    });

    test('every numeric request field declares its range', () => {
      const unbounded: string[] = [];
      const walk = (s: Schema | undefined, where: string) => {
        if (!s || s.$ref) return;
        const types = typesOf({ type: s.type ?? [] });
        if (types.some((t) => t === 'number' || t === 'integer') && (s.minimum === undefined || s.maximum === undefined) && s.enum === undefined && s.const === undefined) {
          unbounded.push(where);
        }
        for (const x of s.anyOf ?? []) walk(x, where);
        walk(s.items, `${where}[]`);
        for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`);
      };
      for (const op of operations[service]) {
        for (const p of op.parameters) walk(p.schema, `${op.method} ${op.path} ${p.in}.${p.name}`);
        walk(op.body, `${op.method} ${op.path} body`);
      }
      assert.deepEqual(unbounded, []);
    });
  });
}

test('orders: an overflowing amount filter is refused by the list and by the export, and no task is queued', async () => {
  const token = tokens.admin;
  const tasks = async () => (await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.export_tasks'))[0]!.n;
  const before = await tasks();
  for (const value of ['1e309', 'Infinity', '1e400', '10000000000']) {
    assertRefused('admin', await call(app, 'GET', `/api/admin/orders?min_amount=${value}`, { token }), `list min_amount=${value}`, 'min_amount');
    assertRefused('admin', await call(app, 'POST', `/api/admin/orders/export?max_amount=${value}`, { token }), `export max_amount=${value}`, 'max_amount');
  }
  assert.equal(await tasks(), before);
});

// A body of 3,000 levels (the hostile tests' payment-method `config` that overflowed the stack):
// refused before anything parses it, on every route of both services that takes a JSON body,
// with a 400 in the service's envelope that says the limit, in the reader's language.
describe('JSON bodies nested deeper than the limit (32 levels)', () => {
  const nested = (levels: number, inner = '1') => `${'{"a":'.repeat(levels - 1)}[${inner}]${'}'.repeat(levels - 1)}`;
  const config = (levels: number) => `{"name":"Deep","code":"deep_${levels}","type":"card","sort":1,"config":${nested(levels - 1)}}`;

  test('an admin route (payment-method config) and a time-clock route: 400 in each envelope, in both languages; 32 levels pass', async () => {
    const admin = await call(app, 'POST', '/api/admin/payment-methods', { token: tokens.admin, payload: config(3000), headers: { 'content-type': 'application/json' } });
    assert.equal(admin.status, 400, JSON.stringify(admin.body));
    assert.equal(admin.body.code, 30004);
    assert.equal(admin.body.data, null);
    assert.match(admin.body.message, /nests more than 32 levels/);
    const zh = await call(app, 'POST', '/api/admin/payment-methods', { token: tokens.admin, payload: config(3000), headers: { 'content-type': 'application/json', 'accept-language': 'zh-CN' } });
    assert.equal(zh.status, 400);
    assert.match(zh.body.message, /嵌套超过 32 层/);

    const clock = await call(app, 'POST', '/api/managers/sites', { token: tokens.timeclock, payload: `{"name":"Deep","geofence":${nested(2999)}}`, headers: { 'content-type': 'application/json' } });
    assert.equal(clock.status, 400, JSON.stringify(clock.body));
    assert.equal(clock.body.code, 'VALIDATION_ERROR');
    assert.match(clock.body.message, /nests more than 32 levels/);
    assert.deepEqual(clock.body.details, { limit: 32 });
    const clockZh = await call(app, 'POST', '/api/managers/sites', { token: tokens.timeclock, payload: `{"name":"Deep","geofence":${nested(2999)}}`, headers: { 'content-type': 'application/json', 'accept-language': 'zh-CN' } });
    assert.match(clockZh.body.message, /嵌套超过 32 层/);

    // At the limit the body is parsed and judged by the route as before (here: stored).
    const ok = await call(app, 'POST', '/api/admin/payment-methods', { token: tokens.admin, payload: config(32), headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const over = await call(app, 'POST', '/api/admin/payment-methods', { token: tokens.admin, payload: config(33), headers: { 'content-type': 'application/json' } });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    // Brackets inside strings are text, not levels.
    const text = await call(app, 'POST', '/api/admin/payment-methods', { token: tokens.admin, body: { name: 'Brackets', code: 'brackets', type: 'card', sort: 1, config: { note: '['.repeat(100) + '{"'.repeat(100) } } });
    assert.equal(text.status, 200, JSON.stringify(text.body));
  });

  for (const service of ['admin', 'timeclock'] as const) {
    test(`${service}: every route that takes a JSON body refuses 3,000 levels with a 400`, async () => {
      let tried = 0;
      for (const op of operations[service].filter((o) => testable(o) && o.body)) {
        const res = await call(app, op.method as never, urlOf(op, undefined), { token: tokens[service], payload: nested(3000), headers: { 'content-type': 'application/json' } });
        const shown = `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body)}`;
        // The router, authentication or a rate limit may refuse first; never a 500, never accepted.
        if (res.status === 404 || res.status === 401 || res.status === 403) continue;
        assert.equal(res.status, 400, shown);
        assert.equal(res.body.code, service === 'admin' ? 30004 : 'VALIDATION_ERROR', shown);
        assert.match(res.body.message, /nests more than 32 levels/, shown);
        tried += 1;
      }
      assert.ok(tried >= (service === 'admin' ? 30 : 15), `bodies tried: ${tried}`);
    });
  }
});
