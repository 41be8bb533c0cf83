// The kit's fetch wrapper and a session shared by several tabs: a refresh in one tab rotates the
// token, so a request another tab sent with the old one is refused (401). It is sent again with
// the new token, and the session ends only when the token the tab holds is the one refused.
// The server is a function standing in for `fetch` (the browser's, not ours).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { apiClient } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';

interface Paths {
  '/api/thing': {
    get: { responses: { 200: { content: { 'application/json': { ok: boolean } } } } };
    post: { requestBody: { content: { 'application/json': { name: string } } }; responses: { 200: { content: { 'application/json': { ok: boolean } } } } };
  };
}

const realFetch = globalThis.fetch;
afterEach(() => (globalThis.fetch = realFetch));

/** A client over a server that accepts the tokens in `valid`; `onSend` runs as a request arrives. */
function setUp(opts: { settled?: () => Promise<void> } = {}) {
  const state = { token: 'old' as string | null, ended: [] as string[], sent: [] as string[], valid: new Set(['new', 'newer']), onSend: () => {} };
  globalThis.fetch = (async (input: Request) => {
    const auth = input.headers.get('authorization') ?? '';
    state.sent.push(`${input.method} ${auth} ${await input.text()}`.trim());
    state.onSend();
    return state.valid.has(auth.replace('Bearer ', '')) ? Response.json({ ok: true }) : Response.json({ code: 10004 }, { status: 401 });
  }) as typeof fetch;
  const { api, settle } = apiClient<Paths, string>({
    session: {
      getSession: () => (state.token ? { token: state.token } : null),
      setSession: (_none, reason) => {
        state.token = null;
        state.ended.push(reason ?? '');
      },
    },
    errorOf: (status, body) => new ApiError(status, (body as { code: number }).code, 'refused'),
    networkError: () => new ApiError(0, 'NETWORK', 'no answer'),
    endOf401: (body) => ((body as { code?: number } | null)?.code === 10004 ? 'revoked' : undefined),
    ...opts,
  });
  return { api, settle, state };
}

test('a read refused because another tab replaced the token on its way is sent again with the new one; a write is not', async () => {
  const { api, settle, state } = setUp();
  state.onSend = () => (state.token = 'new');
  assert.deepEqual((await settle(api.GET('/api/thing'))).data, { ok: true });
  assert.deepEqual(state.sent, ['GET Bearer old', 'GET Bearer new']);

  state.token = 'old';
  state.sent = [];
  await assert.rejects(settle(api.POST('/api/thing', { body: { name: 'a' } })), (err: ApiError) => err.status === 401);
  assert.deepEqual(state.sent, ['POST Bearer old {"name":"a"}']);
  assert.deepEqual(state.ended, [], 'the session goes on with the new token');
  assert.equal(state.token, 'new');
});

test('a 401 to the token the tab still holds waits for a refresh in progress elsewhere before it ends the session', async () => {
  // The other tab's new token arrives while the refusal is being judged: sent again, still signed in.
  const arriving = setUp({ settled: async () => void (arriving.state.token = 'newer') });
  assert.deepEqual((await arriving.settle(arriving.api.GET('/api/thing'))).data, { ok: true });
  assert.deepEqual(arriving.state.sent, ['GET Bearer old', 'GET Bearer newer']);
  assert.deepEqual(arriving.state.ended, []);

  // Nothing arrives: the session has ended (kicked out), and the refusal is the answer.
  const { api, settle, state } = setUp({ settled: async () => {} });
  await assert.rejects(settle(api.GET('/api/thing')), (err: ApiError) => err.status === 401);
  assert.deepEqual(state.sent, ['GET Bearer old']);
  assert.deepEqual(state.ended, ['revoked']);
});
