// The kit's logic that needs no browser: list filters between typed values and the URL, and a
// refusal of the server put next to the form field it names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { fieldErrorsOf, messageOf } from '../feedback.ts';
import { filterText, filtersFor, readListParams, toQuery, writeListParams } from '../list/params.ts';

/** A list path's query as openapi-typescript writes it (page and sort required: they have defaults). */
interface Query {
  page: number;
  page_size: number;
  username?: string;
  status?: number;
  role_id?: number;
  order_by: 'id:asc' | 'id:desc' | 'created_at:desc';
}

const t = (key: string) => `[${key}]`;

test('typed filter values go to the URL as text, without the empty ones, and come back with their names', () => {
  const text = filterText<Query>({ username: '  ann ', status: 0, role_id: null });
  assert.deepEqual(text, { username: 'ann', status: '0' });
  const search = writeListParams<Query>({ page: 2, pageSize: 10, orderBy: 'created_at:desc', filters: text });
  assert.equal(search.toString(), 'username=ann&status=0&order_by=created_at%3Adesc&page=2');
  const back = readListParams<Query>(search);
  assert.deepEqual(back, { page: 2, pageSize: 10, orderBy: 'created_at:desc', filters: { username: 'ann', status: '0' } });
  assert.deepEqual(toQuery<Query>(back), { username: 'ann', status: '0', page: 2, page_size: 10, order_by: 'created_at:desc' });
});

test('an export body takes the filters it names, and no others', () => {
  const body = filtersFor<{ username?: string; status?: '1' | '0' }>({ username: 'ann', nickname: 'A', status: '1' }, ['username', 'status']);
  assert.deepEqual(body, { username: 'ann', status: '1' });
  assert.deepEqual(filtersFor<{ username?: string }>({}, ['username']), {});
});

test('a refusal is put at the field it names when the form has it; a 400 naming none goes to the fallback', () => {
  const named = new ApiError(400, 30001, 'Parameter validation failed: body.email must match format "email"', { field: 'email' });
  assert.deepEqual(fieldErrorsOf(named, ['username', 'email'], t), [{ name: 'email', errors: [named.message] }]);
  const nested = new ApiError(400, 'VALIDATION_ERROR', 'bad price', { field: 'products.0.price' });
  assert.deepEqual(fieldErrorsOf(nested, ['products'], t), [{ name: 'products', errors: ['bad price'] }]);
  // A field the form does not show: a toast, unless the form says which field such a refusal is about.
  assert.deepEqual(fieldErrorsOf(named, ['username'], t), []);
  const unnamed = new ApiError(400, 30002, 'Data already exists');
  assert.deepEqual(fieldErrorsOf(unnamed, ['ip', 'remark'], t, 'ip'), [{ name: 'ip', errors: ['Data already exists'] }]);
  // Not a refused value (no permission, no answer): never at a field.
  assert.deepEqual(fieldErrorsOf(new ApiError(403, 20001, 'No permission'), ['ip'], t, 'ip'), []);
  const offline = new ApiError(0, 'NETWORK', 'Failed to fetch');
  assert.deepEqual(fieldErrorsOf(offline, ['ip'], t, 'ip'), []);
  assert.equal(messageOf(offline, t), '[kit:error.network]');
  assert.equal(messageOf(new Error('boom'), t), 'boom');
});
