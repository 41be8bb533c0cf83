// Live push over WebSocket (GET /ws/notifications): authentication before the upgrade (bearer
// header or single-use ticket), the contract's message shape, sockets of ended sessions closed
// with 1008, heartbeats, the limit of sockets per session, oversized client frames, slow
// consumers, shutdown, the ticket kept out of the logs, and delivery across instances (Redis
// pub/sub, or PostgreSQL NOTIFY).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { NotificationsService } from '../../src/admin/features/notifications/notifications.service.ts';
import { RealtimeHub } from '../../src/platform/realtime/hub.ts';
import { closeAll, CLUSTER_MODES, clusterSkip, startApp, startWithSibling, type TestApp } from '../helpers/app.ts';
import { assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';

const WAIT_MS = 10_000;

/** Starts listening on a free port; the socket URL of the notifications endpoint. */
async function listen(app: TestApp): Promise<string> {
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as AddressInfo;
  return `ws://127.0.0.1:${port}/api/admin/ws/notifications`;
}

interface Closed {
  code: number;
  reason: string;
}

/** A `ws` client that records its messages and how it closed. */
class Client {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  readonly closed: Promise<Closed>;
  /** Settles when the upgrade is done; listened to from the start, so an early `open` is not missed. */
  readonly opened: Promise<void>;
  private waiters: (() => void)[] = [];
  constructor(ws: WebSocket) {
    this.ws = ws;
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    this.opened.catch(() => {});
    ws.on('message', (data) => {
      this.messages.push(JSON.parse((data as Buffer).toString('utf8')));
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }
  /** The first message (from index `from`) matching `pred`. */
  async next(pred: (m: any) => boolean = () => true, from = 0): Promise<any> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const hit = this.messages.slice(from).find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching message among ${this.messages.length}: ${this.messages.map((m) => m.data?.title).join(', ').slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }
  async closedWithin(ms = WAIT_MS): Promise<Closed> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the socket was not closed')), ms);
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Opens a socket; rejects with the HTTP status and body when the upgrade is refused. */
function connect(url: string, opts: { token?: string; ticket?: string; autoPong?: boolean } = {}): Promise<Client> {
  const target = opts.ticket ? `${url}?ticket=${opts.ticket}` : url;
  const ws = new WebSocket(target, {
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    autoPong: opts.autoPong ?? true,
  });
  const client = new Client(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += String(c)));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body || 'null') })));
    });
    ws.once('error', (err) => reject(err));
  });
}

async function refused(url: string, opts: Parameters<typeof connect>[1]): Promise<{ status: number; body: any }> {
  try {
    const c = await connect(url, opts);
    c.ws.terminate();
  } catch (err) {
    return err as { status: number; body: any };
  }
  throw new Error('the upgrade was accepted');
}

const sendTo = (app: TestApp, token: string, adminIds: number[], title: string, content = `content of ${title}`) =>
  call(app, 'POST', '/api/admin/notifications', { token, body: { title, content, admin_ids: adminIds } });

const claims = (token: string): { sid: number; uid: number } => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('one instance', () => {
  let app: TestApp;
  let url: string;
  let superToken: string;
  let superId: number;
  let superName: string;
  const clients: Client[] = [];

  before(async () => {
    app = await startApp();
    url = await listen(app);
    superToken = await login(app);
    const me = assertOk(await call(app, 'GET', '/api/admin/info', { token: superToken }));
    superId = me.id;
    superName = me.nickname || me.username;
  });
  after(async () => {
    for (const c of clients) c.ws.terminate();
    await app?.close();
  });

  async function open(opts: Parameters<typeof connect>[1]) {
    const c = await connect(url, opts);
    clients.push(c);
    return c;
  }

  test('the global WebSocket with the Authorization header receives exactly its own notifications, in the contract’s shape', async () => {
    const [me, other] = [await signedInAdmin(app), await signedInAdmin(app)];
    // Node's own WebSocket accepts `headers`, as a server-side client would send them.
    const native = new globalThis.WebSocket(url, { headers: { authorization: `Bearer ${me.token}` } });
    const frames: string[] = [];
    native.addEventListener('message', (e) => frames.push(String(e.data)));
    await new Promise((resolve, reject) => {
      native.addEventListener('open', resolve);
      native.addEventListener('error', reject);
    });

    assertOk(await sendTo(app, superToken, [other.id], 'not for me'));
    const sent = assertOk(await sendTo(app, superToken, [me.id, other.id], 'for me', 'Hello 你好 "quoted"'));
    const deadline = Date.now() + WAIT_MS;
    while (frames.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    native.close();
    assert.equal(frames.length, 1, `frames: ${frames.join(' | ')}`);
    assert.deepEqual(JSON.parse(frames[0]!), {
      type: 'notification',
      data: {
        id: sent.id, title: 'for me', content: 'Hello 你好 "quoted"', created_at: sent.created_at,
        kind: 'message', link: null, link_expires_at: null, sender_id: superId, sender_name: superName,
      },
    });
    // The contract's four fields first, then the notification list's additive ones.
    assert.equal(Object.keys(JSON.parse(frames[0]!).data).join(','), 'id,title,content,created_at,kind,link,link_expires_at,sender_id,sender_name');
  });

  test('every open socket of a recipient gets it; `all` reaches everyone connected', async () => {
    const [a, b] = [await signedInAdmin(app), await signedInAdmin(app)];
    const aSecond = await login(app, a.username, a.password);
    const sockets = [await open({ token: a.token }), await open({ token: aSecond }), await open({ token: b.token })];
    const sent = assertOk(await sendTo(app, superToken, [a.id], 'to a'));
    for (const s of sockets.slice(0, 2)) assert.equal((await s.next()).data.id, sent.id);
    const everyone = assertOk(await call(app, 'POST', '/api/admin/notifications', { token: superToken, body: { title: 'to all', content: 'x', all: true } }));
    for (const s of sockets) assert.equal((await s.next((m) => m.data.id === everyone.id)).data.title, 'to all');
    assert.ok(!sockets[2]!.messages.some((m) => m.data.id === sent.id), 'b did not get a’s notification');
  });

  test('the upgrade is refused (401) without credentials, with a bad or revoked token, or a bad ticket', async () => {
    const a = await signedInAdmin(app);
    let r = await refused(url, {});
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 10007);
    r = await refused(url, { token: 'not-a-jwt' });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 10007);
    const revoked = await login(app, a.username, a.password);
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: revoked }));
    r = await refused(url, { token: revoked });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 10004);
    r = await refused(url, { ticket: 'A'.repeat(43) });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 10007);
    r = await refused(url, { ticket: 'short' });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 30001);
    // A plain GET (no upgrade) is answered in the envelope.
    const plain = await call(app, 'GET', '/api/admin/ws/notifications', { token: a.token });
    assert.equal(plain.status, 400);
    assert.equal(plain.body.code, 30001);
  });

  test('the socket endpoint and the ticket are documented in OpenAPI', async () => {
    const doc = (await call(app, 'GET', '/api/admin/docs/openapi.json')).body;
    const socket = doc.paths['/api/admin/ws/notifications'].get;
    assert.match(socket.description, /"type": "notification"/);
    assert.deepEqual(socket.parameters.map((p: any) => p.name), ['ticket', 'lang']);
    assert.match(socket.description, /"type": "permissions_changed"/);
    assert.match(socket.description, /link_expires_at/);
    assert.ok(doc.paths['/api/admin/ws/ticket'].post);
  });

  test('a ticket from POST /ws/ticket opens one socket, once, for the caller’s session', async () => {
    const a = await signedInAdmin(app);
    const issued = assertOk(await call(app, 'POST', '/api/admin/ws/ticket', { token: a.token }));
    assert.match(issued.ticket, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(Date.parse(issued.expires_at) > Date.now());
    const socket = await open({ ticket: issued.ticket });
    const sent = assertOk(await sendTo(app, superToken, [a.id], 'by ticket'));
    assert.equal((await socket.next()).data.id, sent.id);
    const again = await refused(url, { ticket: issued.ticket });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 10007);

    // A ticket of a session that ended before it was used is refused.
    const other = await login(app, a.username, a.password);
    const late = assertOk(await call(app, 'POST', '/api/admin/ws/ticket', { token: other }));
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: other }));
    const r = await refused(url, { ticket: late.ticket });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 10004);
    assert.equal((await call(app, 'POST', '/api/admin/ws/ticket', {})).status, 401);
  });

  test('logout, kick-out, disabling and a password reset close the session’s sockets with 1008; other sessions stay', async () => {
    const a = await signedInAdmin(app);
    const kept = await login(app, a.username, a.password);
    const keptSocket = await open({ token: kept });

    const byLogout = await open({ token: a.token });
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: a.token }));
    assert.equal((await byLogout.closedWithin()).code, 1008);

    const kickToken = await login(app, a.username, a.password);
    const byKick = await open({ token: kickToken });
    assertOk(await call(app, 'DELETE', `/api/admin/online-admins/${claims(kickToken).sid}`, { token: superToken }));
    assert.equal((await byKick.closedWithin()).code, 1008);
    // The kicked administrator's other socket is still open and is told about the kick-out.
    const told = await keptSocket.next((m) => m.data.title === 'Signed out by an administrator');
    assert.match(told.data.content, new RegExp(String(claims(kickToken).sid)));
    assert.equal(keptSocket.ws.readyState, WebSocket.OPEN);

    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}/reset-password`, { token: superToken, body: { password: 'Reset-pass-123' } }));
    assert.equal((await keptSocket.closedWithin()).code, 1008);

    const b = await signedInAdmin(app);
    const bSocket = await open({ token: b.token });
    assertOk(await call(app, 'PUT', `/api/admin/admins/${b.id}`, { token: superToken, body: { status: 0 } }));
    const closed = await bSocket.closedWithin();
    assert.equal(closed.code, 1008);
    assert.equal(closed.reason, 'session ended');
  });

  test('a refreshed token or a role change keeps the socket open', async () => {
    const a = await signedInAdmin(app);
    const socket = await open({ token: a.token });
    const refreshed = assertOk(await call(app, 'POST', '/api/admin/refresh-token', { token: a.token }));
    const other = await seedAdmin(app);
    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}`, { token: superToken, body: { role_ids: [other.roleId] } }));
    const sent = assertOk(await sendTo(app, superToken, [a.id], 'still here'));
    assert.equal((await socket.next((m) => m.type === 'notification')).data.id, sent.id);
    assert.equal(socket.ws.readyState, WebSocket.OPEN);
    assertOk(await call(app, 'POST', '/api/admin/logout', { token: refreshed.token }));
    assert.equal((await socket.closedWithin()).code, 1008);
  });

  test('system notifications are pushed in each socket’s language: ?lang=, else the ticket request’s, else the upgrade’s Accept-Language', async () => {
    const victim = await signedInAdmin(app);
    const [s1, s2, s3, s4] = [
      await login(app, victim.username, victim.password), await login(app, victim.username, victim.password),
      await login(app, victim.username, victim.password), await login(app, victim.username, victim.password),
    ];
    const ticketOf = async (token: string, lang: string) =>
      (await call(app, 'POST', '/api/admin/ws/ticket', { token, headers: { 'accept-language': lang } })).body.data.ticket as string;
    // A browser sends its own Accept-Language on the upgrade: the ticket's language wins over it.
    const zhTicket = new Client(new WebSocket(`${url}?ticket=${await ticketOf(s1, 'zh-CN')}`, { headers: { 'accept-language': 'en-US' } }));
    const zhLang = new Client(new WebSocket(`${url}?lang=zh-CN`, { headers: { authorization: `Bearer ${s2}`, 'accept-language': 'en-US' } }));
    const zhHeader = new Client(new WebSocket(url, { headers: { authorization: `Bearer ${s3}`, 'accept-language': 'zh-CN,zh;q=0.9' } }));
    const en = new Client(new WebSocket(`${url}?ticket=${await ticketOf(s4, 'en-US')}`, { headers: { 'accept-language': 'zh-CN' } }));
    const sockets = [zhTicket, zhLang, zhHeader, en];
    clients.push(...sockets);
    await Promise.all(sockets.map((c) => c.opened));

    // Kicking out one more session of the victim tells the victim's open sockets, each in its language.
    const kicked = await login(app, victim.username, victim.password);
    assertOk(await call(app, 'DELETE', `/api/admin/online-admins/${claims(kicked).sid}`, { token: superToken }));
    const isKick = (m: any) => m.type === 'notification' && m.data.kind === 'session';
    for (const c of sockets.slice(0, 3)) {
      const m = await c.next(isKick);
      assert.equal(m.data.title, '已被管理员强制下线');
      assert.equal(m.data.content, `管理员 admin 结束了你的会话 ${claims(kicked).sid}。请重新登录后继续；如非预期，请联系该管理员。`);
      assert.equal(m.data.link, null);
    }
    const m = await en.next(isKick);
    assert.equal(m.data.title, 'Signed out by an administrator');
    assert.match(m.data.content, /^Administrator admin ended your session \d+\./);

    // A bad ?lang= is refused before the upgrade.
    const bad = await refused(`${url}?lang=fr-FR`, { token: s4 });
    assert.equal(bad.status, 400);
  });

  test('an export’s notification is pushed with its link and expiry as fields', async () => {
    const owner = await signedInAdmin(app, { permissions: ['admin.export'] });
    const socket = await open({ token: owner.token });
    const task = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: owner.token, body: { username: owner.username } }));
    const m = await socket.next((x) => x.type === 'notification' && x.data.kind === 'export');
    assert.equal(m.data.title, 'Export finished');
    assert.equal(m.data.content, `Your administrators export #${task.id} is ready: 1 rows.`);
    assert.equal(m.data.link, `/api/admin/exports/${task.id}/download`);
    assert.match(m.data.link_expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('a change of what an administrator’s roles grant sends `permissions_changed` to their sockets only, which stay open', async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.list'] });
    const b = await signedInAdmin(app);
    const [aSocket, aSecond, bSocket] = [await open({ token: a.token }), await open({ token: a.token }), await open({ token: b.token })];
    const changed = (m: any) => m.type === 'permissions_changed';
    const permission = assertOk(await call(app, 'GET', '/api/admin/permissions?page_size=100&slug=role.list', { token: superToken })).list.find((p: any) => p.slug === 'role.list');

    // The role's permissions change.
    assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: superToken, body: { permission_ids: [permission.id] } }));
    assert.deepEqual(await aSocket.next(changed), { type: 'permissions_changed' });
    await aSecond.next(changed);
    // The next read of /info shows the new grants.
    assert.ok(assertOk(await call(app, 'GET', '/api/admin/info', { token: a.token })).permissions.includes('role.list'));

    // The role's menus change.
    const from = aSocket.messages.length;
    const menu = assertOk(await call(app, 'GET', '/api/admin/menus?title=Roles', { token: superToken })).list;
    assert.ok(menu.length > 0);
    assertOk(await call(app, 'PUT', `/api/admin/roles/${a.roleId}`, { token: superToken, body: { menu_ids: [menu[0].id] } }));
    await aSocket.next(changed, from);

    // The administrator's roles change.
    const from2 = aSocket.messages.length;
    const other = await seedAdmin(app);
    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}`, { token: superToken, body: { role_ids: [a.roleId, other.roleId] } }));
    await aSocket.next(changed, from2);

    // Nothing for b, and a's sockets stay open; a notification sent afterwards still arrives.
    const sent = assertOk(await sendTo(app, superToken, [a.id, b.id], 'after the changes'));
    assert.equal((await bSocket.next((m) => m.type === 'notification')).data.id, sent.id);
    assert.ok(!bSocket.messages.some(changed), 'b was not told');
    assert.equal((await aSocket.next((m) => m.data?.id === sent.id)).data.id, sent.id);
    assert.equal(aSocket.ws.readyState, WebSocket.OPEN);

    // A change that grants nothing new (the nickname) says nothing.
    const from3 = aSocket.messages.length;
    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}`, { token: superToken, body: { nickname: 'renamed' } }));
    const sent2 = assertOk(await sendTo(app, superToken, [a.id], 'after the nickname'));
    await aSocket.next((m) => m.data?.id === sent2.id, from3);
    assert.ok(!aSocket.messages.slice(from3).some(changed));
  });

  test('a client frame over 64 KiB closes the socket with 1009; smaller frames are ignored', async () => {
    const a = await signedInAdmin(app);
    const socket = await open({ token: a.token });
    socket.ws.send('x'.repeat(64 * 1024));
    socket.ws.send(JSON.stringify({ type: 'ping' }));
    const sent = assertOk(await sendTo(app, superToken, [a.id], 'after small frames'));
    assert.equal((await socket.next()).data.id, sent.id);
    socket.ws.send('x'.repeat(64 * 1024 + 1));
    assert.equal((await socket.closedWithin()).code, 1009);
  });
});

describe('heartbeat', () => {
  let app: TestApp;
  let url: string;
  let token: string;

  before(async () => {
    app = await startApp({ WS_HEARTBEAT_MS: '100' });
    url = await listen(app);
    token = await login(app);
  });
  after(() => app?.close());

  test('a socket that does not answer pings is dropped; one that answers stays', async () => {
    const silent = await connect(url, { token, autoPong: false });
    const lively = await connect(url, { token });
    let pings = 0;
    lively.ws.on('ping', () => (pings += 1));
    const closed = await silent.closedWithin();
    assert.equal(closed.code, 1006, 'terminated without a closing handshake');
    const deadline = Date.now() + WAIT_MS;
    while (pings < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(pings >= 3, `pinged ${pings} times`);
    assert.equal(lively.ws.readyState, WebSocket.OPEN);
    lively.ws.close();
    await lively.closed;
  });

});

// Not under the 100 ms heartbeat above: on a loaded machine a pong can come later, and the
// sockets this test expects open would be dropped for it.
describe('sockets per session', () => {
  let app: TestApp;
  let url: string;

  before(async () => {
    app = await startApp({ WS_MAX_SOCKETS_PER_SESSION: '2' });
    url = await listen(app);
  });
  after(() => app?.close());

  test('a session holds at most WS_MAX_SOCKETS_PER_SESSION sockets: one more is refused (429); other sessions are not affected', async () => {
    const [mine, other] = [await login(app), await login(app)];
    const open = [await connect(url, { token: mine }), await connect(url, { token: mine })];
    const r = await refused(url, { token: mine });
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 10009);
    const ticket = assertOk(await call(app, 'POST', '/api/admin/ws/ticket', { token: mine })).ticket as string;
    assert.equal((await refused(url, { ticket })).status, 429, 'a ticket of the session counts the same');
    const elsewhere = await connect(url, { token: other });
    // Once one closes, the session may open another.
    open[0]!.ws.close();
    await open[0]!.closed;
    let again: Client | undefined;
    for (const deadline = Date.now() + WAIT_MS; !again; ) {
      try {
        again = await connect(url, { token: mine });
      } catch (err) {
        if ((err as { status?: number }).status !== 429 || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    for (const c of [open[1]!, elsewhere, again]) {
      assert.equal(c.ws.readyState, WebSocket.OPEN);
      c.ws.close();
      await c.closed;
    }
  });
});

test('the hub closes (1013) a socket beyond the limit of its session that got past the upgrade check', () => {
  class FakeSocket extends EventEmitter {
    readyState = 1;
    closedWith: [number, string] | undefined;
    close(code: number, reason: string) {
      this.closedWith = [code, reason];
    }
  }
  const hub = new RealtimeHub({ heartbeatMs: 60_000, maxBufferedBytes: 1024, maxPerSession: 1, logger: pino({ level: 'silent' }) });
  const [first, second, otherSession] = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
  const peer = { userId: 1, sessionId: 7, expiresAt: Date.now() + 60_000 };
  hub.add(first as unknown as WebSocket, peer);
  hub.add(second as unknown as WebSocket, peer);
  hub.add(otherSession as unknown as WebSocket, { ...peer, sessionId: 8 });
  assert.deepEqual(second.closedWith, [1013, 'too many sockets for this session']);
  assert.equal(first.closedWith, undefined);
  assert.equal(otherSession.closedWith, undefined);
  assert.equal(hub.size, 2);
  assert.equal(hub.sessionSockets(7), 1);
});

describe('slow consumers and shutdown', () => {
  let app: TestApp;
  let url: string;
  let token: string;
  let adminId: number;
  let closed = false;

  before(async () => {
    app = await startApp({ WS_MAX_BUFFERED_BYTES: String(256 * 1024) });
    url = await listen(app);
    token = await login(app);
    adminId = claims(token).uid;
  });
  after(async () => {
    if (!closed) await app?.close();
  });

  test('a client that stops reading is closed (1013) instead of buffering without bound', async () => {
    const slow = await connect(url, { token });
    const fast = await connect(url, { token });
    // Stop reading: the kernel buffers fill, then the server's own buffer.
    (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const service = new NotificationsService(app.platform);
    const big = 'x'.repeat(100_000);
    // One at a time, each read by the fast client: only the paused one falls behind. The
    // kernel's socket buffers take some megabytes before the server's own buffer grows.
    const published = 400;
    for (let i = 0; i < published; i++) {
      await service.publish({ id: i + 1, title: `bulk ${i}`, content: big, created_at: new Date().toISOString() }, [adminId]);
      await fast.next((m) => m.data.title === `bulk ${i}`, i);
    }
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await slow.closedWithin();
    assert.equal(closed.code, 1013);
    assert.ok(slow.messages.length < published, `the slow client got ${slow.messages.length} of ${published}`);
    assert.equal(fast.messages.length, published);
    fast.ws.close();
  });

  test('closing the app closes every socket with 1001', async () => {
    const sockets = [await connect(url, { token }), await connect(url, { token })];
    closed = true;
    await app.close();
    for (const s of sockets) assert.equal((await s.closedWithin()).code, 1001);
  });
});

test('the ticket does not appear in the logs', async () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await startApp({ LOG_LEVEL: 'info' }, { logger: pino({ level: 'info' }, stream) });
  try {
    const url = await listen(app);
    const token = await login(app);
    const { ticket } = assertOk(await call(app, 'POST', '/api/admin/ws/ticket', { token }));
    const socket = await connect(url, { ticket });
    socket.ws.close();
    await socket.closed;
    await refused(url, { ticket });
    assert.ok(lines.some((l) => l.includes('/api/admin/ws/notifications')), 'the socket requests are logged');
    assert.deepEqual(lines.filter((l) => l.includes(ticket)), []);
  } finally {
    await app.close();
  }
});

for (const { mode, label, overrides } of CLUSTER_MODES) {
  describe(`two instances sharing ${label}`, { skip: clusterSkip(mode) }, () => {
    const apps: TestApp[] = [];
    after(() => closeAll(...apps.reverse()));

    test('a notification sent through one instance reaches a socket on the other; a kick-out there closes it', async () => {
      const [one, two] = await startWithSibling(overrides);
      apps.push(one, two);
      const url = await listen(two);
      const superToken = await login(one);
      const a = await seedAdmin(one);
      const aToken = await login(one, a.username, a.password);
      const socket = await connect(url, { token: aToken });

      const sent = assertOk(await sendTo(one, superToken, [a.id], 'across instances'));
      assert.deepEqual((await socket.next()).data, {
        id: sent.id, title: 'across instances', content: 'content of across instances', created_at: sent.created_at, kind: 'message', link: null, link_expires_at: null,
        sender_id: 1, sender_name: 'Super Administrator',
      });

      // Too large for PostgreSQL NOTIFY: pushed by reference and read back on the other instance.
      const large = '字'.repeat(5000);
      const big = assertOk(await sendTo(one, superToken, [a.id], 'large', large));
      const got = await socket.next((m) => m.data.id === big.id);
      assert.equal(got.data.content, large);

      // A change of a's grants made on one reaches a's socket on the other; a system
      // notification is rendered there in the socket's language.
      const zh = await connect(`${url}?lang=zh-CN`, { token: aToken });
      assertOk(await call(one, 'PUT', `/api/admin/roles/${a.roleId}`, { token: superToken, body: { permission_ids: [] } }));
      await socket.next((m) => m.type === 'permissions_changed');
      const other = await login(one, a.username, a.password);
      assertOk(await call(one, 'DELETE', `/api/admin/online-admins/${claims(other).sid}`, { token: superToken }));
      assert.equal((await zh.next((m) => m.data?.kind === 'session')).data.title, '已被管理员强制下线');
      zh.ws.terminate();

      assertOk(await call(one, 'DELETE', `/api/admin/online-admins/${claims(aToken).sid}`, { token: superToken }));
      assert.equal((await socket.closedWithin()).code, 1008);
    });

    test('a ticket issued by one instance opens a socket on the other', { skip: mode !== 'redis' && 'tickets live in the shared store (Redis)' }, async () => {
      const [one, two] = apps as [TestApp, TestApp];
      const token = await login(one);
      const { ticket } = assertOk(await call(one, 'POST', '/api/admin/ws/ticket', { token }));
      const { port } = two.app.server.address() as AddressInfo;
      const socket = await connect(`ws://127.0.0.1:${port}/api/admin/ws/notifications`, { ticket });
      const sent = assertOk(await sendTo(one, token, [claims(token).uid], 'ticket across'));
      assert.equal((await socket.next()).data.id, sent.id);
      socket.ws.close();
    });
  });
}
