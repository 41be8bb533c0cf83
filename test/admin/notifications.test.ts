// Notifications over HTTP: sending to chosen administrators, a role or everyone (permission
// notification.send), the caller's list with paging, read filter and unread count, read marks
// (one's own only), and the notifications the system sends for real events: export finished
// or failed, session kicked out, password reset by someone else.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { MIGRATIONS_ROOT } from '../../src/platform/db/migrate.ts';
import { startApp, within, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, seedAdmin, signedInAdmin } from '../helpers/http.ts';

const BASE = '/api/admin/notifications';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = 987_654_321;

let app: TestApp;
let superToken: string;
let superId: number;
/** The super administrator as a sender is named: the nickname, else the username. */
let superName: string;

before(async () => {
  app = await startApp();
  superToken = await login(app);
  const me = assertOk(await call(app, 'GET', '/api/admin/info', { token: superToken }));
  superId = me.id;
  superName = me.nickname || me.username;
});
after(() => app?.close());

const send = (token: string, body: unknown) => call(app, 'POST', BASE, { token, body });
const list = (token: string, query = '') => call(app, 'GET', `${BASE}${query}`, { token });
const titlesOf = (data: { list: { title: string }[] }) => data.list.map((n) => n.title);
const unique = (label: string) => `${label} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe('POST /notifications', () => {
  test('stores a notification for the chosen administrators only', async () => {
    const [a, b, c] = [await signedInAdmin(app), await signedInAdmin(app), await signedInAdmin(app)];
    const title = unique('Chosen');
    const sent = assertOk(await send(superToken, { title, content: 'Hello <b>you</b> 你好', admin_ids: [a.id, b.id] }));
    assert.deepEqual(Object.keys(sent).sort(), ['content', 'created_at', 'id', 'recipients', 'title']);
    assert.equal(sent.recipients, 2);
    assert.equal(sent.title, title);
    assert.match(sent.created_at, ISO);

    for (const who of [a, b]) {
      const data = assertOk(await list(who.token));
      assert.deepEqual(Object.keys(data).sort(), ['list', 'page', 'page_size', 'total', 'unread']);
      const mine = data.list.find((n: any) => n.title === title);
      assert.deepEqual(mine, {
        id: sent.id, title, content: 'Hello <b>you</b> 你好', kind: 'message', link: null, link_expires_at: null,
        sender_id: superId, sender_name: superName, is_read: false, read_at: null, created_at: sent.created_at,
      });
    }
    assert.ok(!titlesOf(assertOk(await list(c.token))).includes(title));
    assert.ok(!titlesOf(assertOk(await list(superToken))).includes(title));
  });

  test('a role reaches its enabled members; `all` reaches every enabled administrator', async () => {
    const member = await seedAdmin(app);
    const disabledMember = await seedAdmin(app, { status: 0 });
    await app.platform.db.query('INSERT INTO admin.admin_roles (admin_id, role_id) VALUES ($1, $2)', [disabledMember.id, member.roleId]);
    const outsider = await signedInAdmin(app);

    const roleTitle = unique('Role');
    assert.equal(assertOk(await send(superToken, { title: roleTitle, content: 'for the role', role_id: member.roleId })).recipients, 1);
    const memberToken = await login(app, member.username, member.password);
    assert.ok(titlesOf(assertOk(await list(memberToken))).includes(roleTitle));
    assert.ok(!titlesOf(assertOk(await list(outsider.token))).includes(roleTitle));

    const allTitle = unique('Everyone');
    const enabled = (await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.admins WHERE status = 1'))[0]!.n;
    const sent = assertOk(await send(superToken, { title: allTitle, content: 'for all', all: true }));
    assert.equal(sent.recipients, enabled);
    for (const token of [memberToken, outsider.token, superToken]) assert.ok(titlesOf(assertOk(await list(token))).includes(allTitle));
    const stored = (await app.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.notification_recipients WHERE notification_id = $1 AND admin_id = $2',
      [sent.id, disabledMember.id],
    ))[0]!.n;
    assert.equal(stored, 0, 'disabled administrators are not in `all` or a role audience');
  });

  test('needs exactly one valid audience, and bounded, non-blank text', async () => {
    const a = await signedInAdmin(app);
    const ok = { title: 'T', content: 'C' };
    for (const body of [
      ok,
      { ...ok, all: false },
      { ...ok, all: true, admin_ids: [a.id] },
      { ...ok, role_id: a.roleId, admin_ids: [a.id] },
      { ...ok, admin_ids: [] },
      { ...ok, admin_ids: [a.id, a.id] },
      { ...ok, admin_ids: ['1'] },
      { title: 'x'.repeat(201), content: 'C', all: true },
      { title: 'T', content: 'x'.repeat(5001), all: true },
      { title: '   ', content: 'C', all: true },
      { title: 'T', all: true },
      { ...ok, all: true, sender_id: 1 },
    ]) {
      assertError(await send(superToken, body), 400, 30001);
    }
    const unknown = await send(superToken, { ...ok, admin_ids: [a.id, UNKNOWN_ID] });
    assertError(unknown, 400, 30001);
    assert.match(unknown.body.message, new RegExp(String(UNKNOWN_ID)));
    assertError(await send(superToken, { ...ok, role_id: UNKNOWN_ID }), 400, 30001);

    // A role with no enabled member: nothing is stored.
    const lonely = await seedAdmin(app, { status: 0 });
    const before = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.notifications');
    assertError(await send(superToken, { ...ok, role_id: lonely.roleId }), 400, 40001);
    const afterwards = await app.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.notifications');
    assert.equal(afterwards[0]!.n, before[0]!.n);

    // Limits are inclusive and count characters, not bytes.
    assert.equal(assertOk(await send(superToken, { title: '字'.repeat(200), content: '字'.repeat(5000), admin_ids: [a.id] })).recipients, 1);
  });

  test('notification.send is enough to send; the sender is recorded and named (nickname, else username)', async () => {
    const plain = await signedInAdmin(app);
    const sender = await signedInAdmin(app, { permissions: ['notification.send'] });
    const sent = assertOk(await send(sender.token, { title: 'T', content: 'C', admin_ids: [plain.id] }));
    assert.equal(sent.recipients, 1);
    const [row] = await app.platform.db.query<{ sender_id: number }>('SELECT sender_id FROM admin.notifications ORDER BY id DESC LIMIT 1');
    assert.equal(Number(row!.sender_id), sender.id);
    const listed = assertOk(await list(plain.token)).list.find((n: any) => n.id === sent.id);
    assert.deepEqual([listed.sender_id, listed.sender_name], [sender.id, `Nick ${sender.username}`]);

    // Without a nickname, the username; marking it read answers the same.
    await app.platform.db.query(`UPDATE admin.admins SET nickname = '' WHERE id = $1`, [sender.id]);
    const marked = assertOk(await call(app, 'PUT', `${BASE}/${sent.id}/read`, { token: plain.token }));
    assert.deepEqual([marked.sender_id, marked.sender_name], [sender.id, sender.username]);
  });
});

describe('GET /notifications', () => {
  test('pages the caller’s notifications newest first, with the filtered total and the unread count', async () => {
    const a = await signedInAdmin(app);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(assertOk(await send(superToken, { title: `N${i}`, content: `c${i}`, admin_ids: [a.id] })).id);

    const page1 = assertOk(await list(a.token, '?page=1&page_size=2'));
    assert.equal(page1.total, 5);
    assert.equal(page1.unread, 5);
    assert.equal(page1.page, 1);
    assert.equal(page1.page_size, 2);
    assert.deepEqual(page1.list.map((n: any) => n.id), [ids[4], ids[3]]);
    const page3 = assertOk(await list(a.token, '?page=3&page_size=2'));
    assert.deepEqual(page3.list.map((n: any) => n.id), [ids[0]]);
    const asc = assertOk(await list(a.token, '?order_by=id:asc&page_size=100'));
    assert.deepEqual(asc.list.map((n: any) => n.id), ids);
    const defaults = assertOk(await list(a.token));
    assert.equal(defaults.page, 1);
    assert.equal(defaults.page_size, 10);

    assertOk(await call(app, 'PUT', `${BASE}/${ids[1]}/read`, { token: a.token }));
    assertOk(await call(app, 'PUT', `${BASE}/${ids[3]}/read`, { token: a.token }));
    const read = assertOk(await list(a.token, '?is_read=1'));
    assert.deepEqual(read.list.map((n: any) => n.id), [ids[3], ids[1]]);
    assert.equal(read.total, 2);
    assert.equal(read.unread, 3);
    for (const n of read.list) {
      assert.equal(n.is_read, true);
      assert.match(n.read_at, ISO);
    }
    const unread = assertOk(await list(a.token, '?is_read=0'));
    assert.deepEqual(unread.list.map((n: any) => n.id), [ids[4], ids[2], ids[0]]);
    assert.equal(unread.total, 3);
    assert.equal(unread.unread, 3);
  });

  test('refuses bad paging, filters and sort orders', async () => {
    for (const q of ['?page=0', '?page_size=101', '?is_read=yes', '?is_read=true', '?order_by=title:asc', '?order_by=id']) {
      assertError(await list(superToken, q), 400, 30001);
    }
  });
});

describe('read marks', () => {
  test('PUT /notifications/{id}/read marks one’s own once; another administrator’s is a 404', async () => {
    const [a, b] = [await signedInAdmin(app), await signedInAdmin(app)];
    const sent = assertOk(await send(superToken, { title: unique('Read'), content: 'c', admin_ids: [a.id] }));
    const first = assertOk(await call(app, 'PUT', `${BASE}/${sent.id}/read`, { token: a.token }));
    assert.equal(first.id, sent.id);
    assert.equal(first.is_read, true);
    assert.match(first.read_at, ISO);
    const again = assertOk(await call(app, 'PUT', `${BASE}/${sent.id}/read`, { token: a.token }));
    assert.equal(again.read_at, first.read_at, 'the first read time stays');

    assertError(await call(app, 'PUT', `${BASE}/${sent.id}/read`, { token: b.token }), 404, 30003);
    assertError(await call(app, 'PUT', `${BASE}/${UNKNOWN_ID}/read`, { token: a.token }), 404, 30003);
    assertError(await call(app, 'PUT', `${BASE}/abc/read`, { token: a.token }), 400, 30001);
    // b's attempt did not mark anything for b or change a's receipt.
    assert.equal(assertOk(await list(b.token, '?is_read=1')).total, 0);
  });

  test('PUT /notifications/read-all marks every unread one of the caller only', async () => {
    const [a, b] = [await signedInAdmin(app), await signedInAdmin(app)];
    for (let i = 0; i < 3; i++) assertOk(await send(superToken, { title: `All ${i}`, content: 'c', admin_ids: [a.id, b.id] }));
    assert.deepEqual(assertOk(await call(app, 'PUT', `${BASE}/read-all`, { token: a.token })), { updated: 3 });
    assert.deepEqual(assertOk(await call(app, 'PUT', `${BASE}/read-all`, { token: a.token })), { updated: 0 });
    const mine = assertOk(await list(a.token));
    assert.equal(mine.unread, 0);
    assert.ok(mine.list.every((n: any) => n.is_read));
    assert.equal(assertOk(await list(b.token)).unread, 3);
  });
});

describe('system notifications', () => {
  /** The caller's notifications, in `lang` (the envelope's message too). */
  const latest = async (token: string, lang?: string) => {
    if (!lang) return assertOk(await list(token, '?page_size=100')).list as any[];
    const res = await call(app, 'GET', `${BASE}?page_size=100`, { token, headers: { 'accept-language': lang } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.list as any[];
  };

  test('an administrator kicked out by someone else is told who did it', async () => {
    const victim = await signedInAdmin(app, { permissions: ['online.kick'] });
    const second = await login(app, victim.username, victim.password);
    const sessions = assertOk(await call(app, 'GET', `/api/admin/online-admins?page_size=100&username=${victim.username}`, { token: superToken }));
    const target = sessions.list.find((s: any) => s.admin_id === victim.id && s.token_id !== claims(second).sid);
    assertOk(await call(app, 'DELETE', `/api/admin/online-admins/${target.token_id}`, { token: superToken }));
    const notes = await latest(second);
    const kicked = notes.filter((n) => n.kind === 'session');
    assert.equal(kicked.length, 1);
    // The system sent it: no sender (the text names who ended the session).
    assert.deepEqual([kicked[0].sender_id, kicked[0].sender_name], [null, null]);
    assert.match(kicked[0].content, /Administrator admin ended your session/);
    assert.match(kicked[0].content, new RegExp(String(target.token_id)));
    // The same notification in Chinese for a reader who reads Chinese, in the list and once marked read.
    const zh = (await latest(second, 'zh-CN')).find((n) => n.id === kicked[0].id);
    assert.equal(zh.title, '已被管理员强制下线');
    assert.match(zh.content, new RegExp(`^管理员 admin 结束了你的会话 ${target.token_id}。`));
    const marked = (await call(app, 'PUT', `${BASE}/${zh.id}/read`, { token: second, headers: { 'accept-language': 'zh-CN,en;q=0.5' } })).body.data;
    assert.equal(marked.title, '已被管理员强制下线');
    assert.equal(marked.link, null);

    // Ending one's own other session tells nobody.
    const third = await login(app, victim.username, victim.password);
    const self = assertOk(await call(app, 'DELETE', `/api/admin/online-admins/${claims(third).sid}`, { token: second }));
    assert.deepEqual(self.kicked, [claims(third).sid]);
    assert.equal((await latest(second)).filter((n) => n.kind === 'session').length, 1);
  });

  test('a password reset by someone else is notified; one’s own change is not', async () => {
    const a = await signedInAdmin(app, { permissions: ['admin.reset_password', 'admin.update'] });
    assertOk(await call(app, 'PUT', '/api/admin/password', {
      token: a.token,
      body: { old_password: a.password, password: 'Own-new-pass-1', password_confirmation: 'Own-new-pass-1' },
    }));
    assert.equal((await latest(a.token)).filter((n) => n.kind === 'security').length, 0);

    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}/reset-password`, { token: superToken, body: { password: 'Reset-pass-123' } }));
    const fresh = await login(app, a.username, 'Reset-pass-123');
    let security = (await latest(fresh)).filter((n) => n.kind === 'security');
    assert.equal(security.length, 1);
    assert.equal(security[0].title, 'Your password was reset');
    assert.match(security[0].content, /Administrator admin set a new password/);
    const zh = (await latest(fresh, 'zh-CN')).filter((n) => n.kind === 'security');
    assert.equal(zh[0].title, '你的密码已被重置');
    assert.match(zh[0].content, /^管理员 admin 为你的账号设置了新密码/);

    // Setting it through PUT /admins/{id} counts too.
    assertOk(await call(app, 'PUT', `/api/admin/admins/${a.id}`, { token: superToken, body: { password: 'Reset-pass-456' } }));
    security = (await latest(await login(app, a.username, 'Reset-pass-456'))).filter((n) => n.kind === 'security');
    assert.equal(security.length, 2);
  });

  test('the owner of an export is told when it finished', async () => {
    const owner = await signedInAdmin(app, { permissions: ['admin.export'] });
    const task = assertOk(await call(app, 'POST', '/api/admin/admins/export', { token: owner.token, body: { username: owner.username } }));
    const hit = await within(15_000, async () => (await latest(owner.token)).find((n) => n.kind === 'export'));
    assert.ok(hit, 'export notification arrived');
    assert.equal(hit.value.title, 'Export finished');
    assert.equal(hit.value.content, `Your administrators export #${task.id} is ready: 1 rows.`);
    // Where to download it and until when are fields, not text: no path, no raw time in the content.
    assert.equal(hit.value.link, `/api/admin/exports/${task.id}/download`);
    assert.match(hit.value.link_expires_at, ISO);
    const [stored] = await app.platform.db.query<{ expires_at: Date }>('SELECT expires_at FROM admin.export_tasks WHERE id = $1', [task.id]);
    assert.equal(hit.value.link_expires_at, stored!.expires_at.toISOString());
    const download = await call(app, 'GET', hit.value.link, { token: owner.token });
    assert.equal(download.status, 200);

    const zh = (await latest(owner.token, 'zh-CN')).find((n) => n.id === hit.value.id);
    assert.equal(zh.title, '导出完成');
    assert.equal(zh.content, `你的管理员导出 #${task.id} 已就绪：共 1 行。`);
    assert.equal(zh.link, hit.value.link);
    assert.equal(zh.link_expires_at, hit.value.link_expires_at);
  });

  test('what an administrator writes is shown as written in every language, with no link', async () => {
    const recipient = await signedInAdmin(app);
    const sent = assertOk(await send(superToken, { title: 'Written title', content: 'Written text', admin_ids: [recipient.id] }));
    for (const lang of ['en-US', 'zh-CN']) {
      const n = (await latest(recipient.token, lang)).find((x) => x.id === sent.id);
      assert.deepEqual([n.title, n.content, n.kind, n.link, n.link_expires_at], ['Written title', 'Written text', 'message', null, null]);
    }
  });

  test('system notifications stored in English before keys existed are turned into keys by the migration', async () => {
    const owner = await signedInAdmin(app);
    const [old] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO admin.notifications (title, content, kind) VALUES ('Export finished',
         'Your admins export #41 is ready: 7 rows. Download it from /api/admin/exports/41/download until 2026-11-27T18:30:19.798Z.', 'export') RETURNING id`,
    );
    const [kicked] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO admin.notifications (title, content, kind) VALUES ('Signed out by an administrator',
         'Administrator boss ended your sessions 4, 5. Sign in again to continue; if you did not expect this, contact them.', 'session') RETURNING id`,
    );
    for (const n of [old!, kicked!]) {
      await app.platform.db.query('INSERT INTO admin.notification_recipients (admin_id, notification_id) VALUES ($1, $2)', [owner.id, n.id]);
    }
    // The migration's conversions (after its ALTER TABLE), run on these rows.
    const sql = readFileSync(`${MIGRATIONS_ROOT}/admin/0013_notification_messages.sql`, 'utf8');
    await app.platform.db.transaction((tx) => tx.script(sql.slice(sql.indexOf('-- System notifications stored before'))));
    const zh = await latest(owner.token, 'zh-CN');
    const exported = zh.find((n) => n.id === Number(old!.id));
    assert.equal(exported.title, '导出完成');
    assert.equal(exported.content, '你的管理员导出 #41 已就绪：共 7 行。');
    assert.equal(exported.link, '/api/admin/exports/41/download');
    assert.equal(exported.link_expires_at, '2026-11-27T18:30:19.798Z');
    assert.equal(zh.find((n) => n.id === Number(kicked!.id)).content, '管理员 boss 结束了你的会话 4, 5。请重新登录后继续；如非预期，请联系该管理员。');
    const en = await latest(owner.token);
    assert.equal(en.find((n) => n.id === Number(old!.id)).content, 'Your administrators export #41 is ready: 7 rows.');
  });

  test('the owner of an export is told when it failed', async () => {
    const owner = await signedInAdmin(app);
    // A task abandoned by a crashed worker after its last attempt: the worker marks it failed.
    const [task] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO admin.export_tasks (kind, owner_id, status, attempts, locked_by, started_at, heartbeat_at)
       VALUES ('admins', $1, 'processing', 3, 'gone', now() - interval '1 hour', now() - interval '1 hour') RETURNING id`,
      [owner.id],
    );
    const hit = await within(15_000, async () => (await latest(owner.token)).find((n) => n.kind === 'export'));
    assert.ok(hit, 'export notification arrived');
    assert.equal(hit.value.title, 'Export failed');
    assert.match(hit.value.content, new RegExp(`administrators export #${Number(task!.id)} failed: abandoned`));
    assert.equal(hit.value.link, null);
    const zh = (await latest(owner.token, 'zh-CN')).find((n) => n.id === hit.value.id);
    assert.equal(zh.title, '导出失败');
  });

  test('notifications of a deleted administrator go with them; the sender may be deleted', async () => {
    const sender = await signedInAdmin(app, { permissions: ['notification.send'] });
    const recipient = await signedInAdmin(app);
    const sent = assertOk(await send(sender.token, { title: 'bye', content: 'c', admin_ids: [recipient.id, superId] }));
    assertOk(await call(app, 'DELETE', `/api/admin/admins/${recipient.id}`, { token: superToken }));
    assertOk(await call(app, 'DELETE', `/api/admin/admins/${sender.id}`, { token: superToken }));
    const rows = await app.platform.db.query<{ admin_id: number }>('SELECT admin_id FROM admin.notification_recipients WHERE notification_id = $1', [sent.id]);
    assert.deepEqual(rows.map((r) => Number(r.admin_id)), [superId]);
    const kept = (await latest(superToken)).find((n) => n.id === sent.id);
    assert.deepEqual([kept.sender_id, kept.sender_name], [null, null]);
  });
});

function claims(token: string): { sid: number } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}
