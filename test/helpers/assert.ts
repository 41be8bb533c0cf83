// Assertions on the admin envelope, shared by the admin test files, and on the rate-limit
// headers both services send.
import assert from 'node:assert/strict';
import type { Reply } from './http.ts';

/** Asserts the admin error envelope: status, business code, `data: null`, trace id, no stack. */
export function assertError(res: Reply, status: number, code: number): void {
  const shown = JSON.stringify(res.body);
  assert.equal(res.status, status, shown);
  assert.match(String(res.headers['content-type']), /^application\/json/, shown);
  assert.equal(typeof res.body, 'object', shown);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'data', 'message', 'trace_id'], shown);
  assert.equal(res.body.code, code, shown);
  assert.equal(res.body.data, null, shown);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0, shown);
  assert.equal(typeof res.body.trace_id, 'string');
  assert.match(res.body.trace_id, /^[A-Za-z0-9._:-]{8,128}$/, shown);
  assert.equal(res.headers['x-trace-id'], res.body.trace_id, 'X-Trace-ID header equals trace_id');
  // Never a stack trace or an internal error name.
  assert.doesNotMatch(shown, /\n\s*at |\bat [^ ]+ \(|\.ts:\d+|node:internal|FST_ERR|stack/i, shown);
}

/** Asserts the admin success envelope and returns its data. */
export function assertOk(res: Reply): any {
  const shown = JSON.stringify(res.body);
  assert.equal(res.status, 200, shown);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'data', 'message', 'trace_id'], shown);
  assert.equal(res.body.code, 200);
  assert.equal(res.body.message, 'success');
  assert.equal(typeof res.body.trace_id, 'string');
  assert.equal(res.headers['x-trace-id'], res.body.trace_id);
  return res.body.data;
}

/** The X-RateLimit-* headers of a limited route (both services): limit, remaining, and the window's end in epoch seconds. */
export function assertLimitHeaders(res: Reply, limit: number, remaining: number): void {
  assert.equal(res.headers['x-ratelimit-limit'], String(limit), JSON.stringify(res.headers));
  assert.equal(res.headers['x-ratelimit-remaining'], String(remaining), JSON.stringify(res.headers));
  const reset = Number(res.headers['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  assert.ok(reset > now - 1 && reset <= now + 61, `X-RateLimit-Reset ${reset} vs now ${now}`);
}
