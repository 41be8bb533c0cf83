// The console's logic that needs no browser: the API client's error mapping, the list state in
// the URL, and when the token is refreshed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiErrorOf, fieldOf } from '../src/api/errors.ts';
import { refreshDelay } from '../src/api/session.ts';
import { readListParams, toQuery, writeListParams } from '../../shared/list/params.ts';

test('a validation failure names its field; the envelope becomes an ApiError', () => {
  assert.equal(fieldOf('Parameter validation failed: body.username must match pattern "^[A-Za-z]+$"'), 'username');
  assert.equal(fieldOf('Parameter validation failed: querystring.page_size must be <= 100'), 'page_size');
  assert.equal(fieldOf('Parameter validation failed: body.products.0.price must be >= 0'), 'products.0.price');
  assert.equal(fieldOf('Wrong username or password'), undefined);
  const e = apiErrorOf(400, { code: 30001, message: 'Parameter validation failed: body.email must match format "email"', data: null, trace_id: 'abc12345' });
  assert.deepEqual([e.status, e.code, e.field, e.traceId], [400, 30001, 'email', 'abc12345']);
  const revoked = apiErrorOf(401, { code: 10004, message: 'Token revoked', data: null, trace_id: 't' });
  assert.equal(revoked.sessionEnded, true);
  assert.equal(apiErrorOf(403, { code: 20001, message: 'No permission', data: null, trace_id: 't' }).sessionEnded, false);
  // Not an envelope (a proxy's page): still an error with a readable message.
  const raw = apiErrorOf(502, '<html>Bad gateway</html>');
  assert.deepEqual([raw.status, raw.code], [502, 0]);
  assert.equal(apiErrorOf(500, null).message, 'HTTP 500');
});

test('list state: page, size, sort and filters round-trip through the URL; defaults stay out of it', () => {
  const p = readListParams(new URLSearchParams('username=ann&page=3&page_size=20&order_by=id:asc&status='));
  assert.deepEqual(p, { page: 3, pageSize: 20, orderBy: 'id:asc', filters: { username: 'ann' } });
  assert.equal(writeListParams(p).toString(), 'username=ann&order_by=id%3Aasc&page=3&page_size=20');
  assert.equal(writeListParams({ ...p, page: 1, pageSize: 10, orderBy: undefined }).toString(), 'username=ann');
  assert.deepEqual(toQuery(p), { username: 'ann', page: 3, page_size: 20, order_by: 'id:asc' });
  // Nonsense in a shared link falls back to the defaults instead of a refused request.
  assert.deepEqual(readListParams(new URLSearchParams('page=-2&page_size=7')), { page: 1, pageSize: 10, orderBy: undefined, filters: {} });
});

test('the token is refreshed a minute before it expires (after 80 % of what is left when that is short)', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(refreshDelay({ token: 't', expiresAt: '2026-01-01T02:00:00Z' }, now), 7_140_000);
  assert.equal(refreshDelay({ token: 't', expiresAt: '2026-01-01T00:01:00Z' }, now), 48_000);
  assert.equal(refreshDelay({ token: 't', expiresAt: '2025-12-31T23:00:00Z' }, now), 0);
});
