// Files, notifications and the profile in Chromium: a chunked upload interrupted by a reload and
// resumed from the chunks the server is missing; a notification sent from one administrator's
// console appearing live on another's bell; a kick-out closing that console's socket and
// sending it to sign-in by itself; changing the password and turning on an authenticator.
import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import { totpCode } from '../../src/platform/auth/totp.ts';
import { ADMIN_PASSWORD, within } from '../helpers/app.ts';
import { browserSkip, newPage, onConsole, screenshot, settled, signIn, visit, type ConsoleServer } from '../helpers/browser.ts';
import { call, login, seedAdmin } from '../helpers/http.ts';

const CHUNK = 64 * 1024;
const indexOf = (route: Route) => Number(/name="chunk_index"\r\n\r\n(\d+)/.exec(route.request().postDataBuffer()?.toString('latin1') ?? '')?.[1]);

async function signedIn(page: Page, base: string, username: string, password: string) {
  await signIn(page, base, username, password);
  await page.getByRole('button', { name: /Notifications, \d+ unread|通知，\d+ 条未读/ }).waitFor();
}

describe('console: files, notifications, profile', { skip: browserSkip() }, () => {
  let browser: Browser;
  let server: ConsoleServer;
  onConsole((s, b) => ((server = s), (browser = b)));

  test('a large file uploaded in chunks survives a reload half-way and is then listed and downloadable', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'upload-'));
    const file = path.join(dir, 'field-report.txt');
    const size = 10 * CHUNK;
    writeFileSync(file, Buffer.alloc(size, 'field report line\n'));
    const w = await newPage(browser);
    await signedIn(w.page, server.base, 'admin', ADMIN_PASSWORD);
    // Small chunks (the chunk size is the client's choice): ten of them.
    await w.page.evaluate((bytes) => localStorage.setItem('fieldops.admin.upload.chunkBytes', String(bytes)), CHUNK);
    await w.page.goto(`${server.base}/attachments`);
    await w.page.getByRole('button', { name: 'Upload a large file' }).waitFor();
    await screenshot(w.page, 'files');

    // The connection stalls after the third chunk; the administrator pauses, then resumes; it
    // stalls again after the fifth, and the administrator reloads the page.
    const held: Route[] = [];
    let holdFrom = 3;
    const stall = async (route: Route) => {
      if (indexOf(route) >= holdFrom) held.push(route);
      else await route.continue();
    };
    await w.page.route('**/api/admin/attachments/chunk', stall);
    const chooser = w.page.waitForEvent('filechooser');
    await w.page.getByRole('button', { name: 'Upload a large file' }).click();
    await (await chooser).setFiles(file);
    await w.page.getByText('Uploading field-report.txt').waitFor();
    const pendingRecord = async () => JSON.parse((await w.page.evaluate(() => localStorage.getItem('fieldops.admin.upload.pending'))) ?? '[]') as { chunkId: string; totalChunks: number }[];
    const [record] = await pendingRecord();
    assert.equal(record?.totalChunks, 10);
    const token = await login(server.app);
    // Before the first chunk has arrived the upload is unknown (404): nothing received yet.
    const state = async () => ((await call(server.app, 'GET', `/api/admin/attachments/chunk/${record.chunkId}`, { token })).body.data
      ?? { received: [], missing: [] }) as { received: number[]; missing: number[] };
    for (let i = 0; i < 100 && (await state()).received.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual((await state()).received, [0, 1, 2]);
    await w.page.getByRole('button', { name: 'Pause' }).click();
    await w.page.getByText('Paused', { exact: true }).waitFor();
    await screenshot(w.page, 'files-upload-paused');
    for (const r of held.splice(0)) await r.abort().catch(() => {});
    holdFrom = 5;
    await w.page.getByRole('button', { name: 'Resume' }).click();
    for (let i = 0; i < 100 && (await state()).received.length < 5; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual((await state()).received, [0, 1, 2, 3, 4]);
    await screenshot(w.page, 'files-upload-in-progress');
    await w.page.unroute('**/api/admin/attachments/chunk', stall);
    await w.page.reload();
    for (const r of held) await r.abort().catch(() => {});

    // After the reload: the unfinished upload is offered; choosing the same file continues it.
    await w.page.getByText('Unfinished uploads').waitFor();
    await w.page.getByText('field-report.txt (640 KiB)').waitFor();
    await screenshot(w.page, 'files-unfinished');
    const { missing } = await state();
    assert.ok(missing.length > 0 && missing.every((i) => i >= 5), `missing ${missing.join()}`);
    const sent: number[] = [];
    await w.page.route('**/api/admin/attachments/chunk', async (route) => {
      sent.push(indexOf(route));
      await route.continue();
    });
    const again = w.page.waitForEvent('filechooser');
    await w.page.getByRole('button', { name: 'Upload a large file' }).click();
    await (await again).setFiles(file);
    await w.page.getByText('field-report.txt uploaded').waitFor();
    assert.deepEqual(sent.sort((a, b) => a - b), missing, 'only the missing chunks were sent');
    assert.deepEqual(await pendingRecord(), [], 'nothing left to resume');

    // Listed (filter by name, kept in the URL), and the download has the right size.
    await w.page.getByLabel('File name').fill('field-report');
    await w.page.getByRole('button', { name: 'Search' }).click();
    await w.page.waitForURL(/original_name=field-report/);
    const row = w.page.getByRole('row', { name: /field-report\.txt/ });
    await row.getByText('640 KiB').waitFor();
    const downloading = w.page.waitForEvent('download');
    await row.getByRole('button', { name: 'Download field-report.txt' }).click();
    const downloaded = await downloading;
    assert.equal(downloaded.suggestedFilename(), 'field-report.txt');
    assert.equal(statSync((await downloaded.path())).size, size);
    await screenshot(w.page, 'files-listed');

    // Its uploader is named. While an administrator's avatar uses it, its delete is refused with
    // the reason; once free, it is deleted.
    const [listed] = (await call(server.app, 'GET', '/api/admin/attachments?original_name=field-report', { token })).body.data.list as { id: number; uploader_name: string }[];
    await row.getByText(listed!.uploader_name, { exact: true }).waitFor();
    const holder = await seedAdmin(server.app);
    const avatar = (url: string) => call(server.app, 'PUT', `/api/admin/admins/${holder.id}`, { token, body: { avatar: url } });
    assert.equal((await avatar(`/api/admin/attachments/${listed!.id}/download`)).status, 200);
    const confirmDelete = async () => {
      await row.getByRole('button', { name: 'Delete field-report.txt' }).click();
      const deleted = w.page.waitForResponse((r) => r.request().method() === 'DELETE' && new URL(r.url()).pathname === `/api/admin/attachments/${listed!.id}`);
      await w.page.getByRole('tooltip').getByRole('button', { name: 'OK', exact: true }).click();
      return (await deleted).status();
    };
    assert.equal(await confirmDelete(), 400);
    await w.page.getByText(/attachment "field-report\.txt" is still used \(1 administrator avatars, 0 payment methods\): change those first/).waitFor();
    await w.page.waitForTimeout(500); // for the picture: the toast's entrance
    await screenshot(w.page, 'files-delete-refused');
    assert.equal((await avatar('')).status, 200);
    assert.equal(await confirmDelete(), 200);
    await w.page.getByText('Nothing matches these filters').waitFor();
    assert.deepEqual(w.errors, []);
    assert.ok(w.failed.every((f) => f === 'POST /api/admin/attachments/chunk failed' || f === `DELETE /api/admin/attachments/${listed!.id} 400`), w.failed.join(', '));
    await w.context.close();
  });

  test('a notification sent from one console appears live on another administrator’s bell; a kick-out sends that console to sign-in', async () => {
    const other = await seedAdmin(server.app, { menus: ['notification'] });
    const receiver = await newPage(browser);
    await signedIn(receiver.page, server.base, other.username, other.password);
    const bell = receiver.page.getByRole('button', { name: 'Notifications, 0 unread' });
    await bell.waitFor();
    await receiver.page.locator('[data-live="open"]').waitFor();

    const sender = await newPage(browser);
    await signedIn(sender.page, server.base, 'admin', ADMIN_PASSWORD);
    await sender.page.goto(`${server.base}/notifications`);
    await sender.page.getByRole('button', { name: 'Send a notification' }).click();
    const dialog = sender.page.getByRole('dialog');
    await dialog.getByLabel('Title').fill('Stock count on Friday');
    await dialog.getByLabel('Content').fill('Please finish the stock count before 17:00.');
    await dialog.getByRole('combobox', { name: 'Administrators' }).fill(other.username);
    await sender.page.locator('.ant-select-item-option', { hasText: other.username }).click();
    await dialog.getByText('Recipients').click();
    await sender.page.locator('.ant-select-dropdown').waitFor({ state: 'hidden' });
    await screenshot(sender.page, 'notifications-send');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await screenshot(sender.page, 'notifications');

    // Without any reload: the bell counts it and a toast shows it, saying who sent it.
    const me = (await call(server.app, 'GET', '/api/admin/info', { token: await login(server.app) })).body.data as { nickname: string; username: string };
    const from = `From ${me.nickname || me.username}`;
    // The toast first: it closes by itself after 10 s, which a loaded machine can spend on the other checks.
    await receiver.page.locator('.ant-notification').getByText(from).waitFor();
    await receiver.page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
    await receiver.page.getByText('Please finish the stock count before 17:00.').first().waitFor();
    await receiver.page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
    await receiver.page.getByText('Latest notifications').waitFor();
    await receiver.page.getByRole('tooltip').getByText(new RegExp(`^${from} · `)).waitFor();
    await receiver.page.waitForTimeout(300); // the popover's opening animation, for the screenshot
    await screenshot(receiver.page, 'notifications-bell');
    await receiver.page.getByRole('tooltip').getByRole('button', { name: 'Mark read: Stock count on Friday' }).click();
    await receiver.page.getByRole('button', { name: 'Notifications, 0 unread' }).click();
    // The popover closes (the bell's own hover tooltip, also a tooltip, may show meanwhile).
    await receiver.page.getByRole('tooltip').filter({ hasText: 'Latest notifications' }).waitFor({ state: 'hidden' });
    // The toast is gone by itself (10 s) before the list's pictures.
    await receiver.page.locator('.ant-notification-notice').waitFor({ state: 'hidden' });
    // The list names the sender too: in a column at a desk's width, under the title on a phone.
    await visit(receiver.page, '/notifications');
    await receiver.page.setViewportSize({ width: 1440, height: 900 });
    const listed = receiver.page.getByRole('row', { name: /Stock count on Friday/ });
    await listed.getByText(me.nickname || me.username, { exact: true }).waitFor();
    await settled(receiver.page);
    await screenshot(receiver.page, 'notifications-sender');
    assert.ok(await receiver.page.evaluate(`[...document.querySelectorAll('.ant-table-content')].every((el) => el.scrollWidth - el.clientWidth <= 1)`), 'every column in view at 1440 px');
    await receiver.page.setViewportSize({ width: 390, height: 844 });
    await listed.getByText(from, { exact: true }).waitFor();
    await settled(receiver.page);
    await screenshot(receiver.page, 'notifications-sender-390');
    await receiver.page.setViewportSize({ width: 1400, height: 900 });

    // Kicked out by the super administrator: the socket closes (1008), the console signs out by itself.
    const operator = await login(server.app);
    const sessions = await call(server.app, 'GET', `/api/admin/online-admins?username=${other.username}`, { token: operator });
    for (const s of sessions.body.data.list as { token_id: number }[]) {
      assert.equal((await call(server.app, 'DELETE', `/api/admin/online-admins/${s.token_id}`, { token: operator })).status, 200);
    }
    await receiver.page.waitForURL(/\/login/);
    await receiver.page.getByText('Your session was ended').waitFor();
    assert.deepEqual(receiver.errors, []);
    // A socket between two connections when the session ends asks for a ticket, which is refused
    // (and ends the session too): seen once in CI, on a loaded machine. No other request fails.
    assert.deepEqual(receiver.failed.filter((f) => f !== 'POST /api/admin/ws/ticket 401'), []);
    assert.deepEqual(sender.errors, []);
    assert.deepEqual(sender.failed, []);
    await receiver.context.close();
    await sender.context.close();
  });

  test('an export’s notification offers its file: Download (with the token) and until when, in the reader’s time zone and language', async () => {
    const who = await seedAdmin(server.app, { permissions: ['admin.export'], menus: ['notification'] });
    const token = await login(server.app, who.username, who.password);
    const task = await call(server.app, 'POST', '/api/admin/admins/export', { token, body: { username: who.username } });
    assert.equal(task.status, 200, JSON.stringify(task.body));
    const done = await within(15_000, async () => {
      const r = await call(server.app, 'GET', '/api/admin/notifications?page=1&page_size=10', { token });
      return (r.body.data.list as { kind: string; link: string | null; link_expires_at: string; title: string }[]).find((n) => n.kind === 'export' && n.link);
    });
    assert.ok(done, 'the export finished and its notification arrived');
    const expires = new Date(done.value.link_expires_at);
    const flat = (s: string) => s.replace(/\s+/gu, ' ');
    for (const [language, timeZone, download, until] of [['en-US', 'America/New_York', 'Download', 'available until'], ['zh-CN', 'Asia/Shanghai', '下载', '有效期至']] as const) {
      const w = await newPage(browser, language, { timezoneId: timeZone });
      await signedIn(w.page, server.base, who.username, who.password);
      await w.page.goto(`${server.base}/notifications`);
      const row = w.page.locator('.ant-table-row', { has: w.page.getByRole('button', { name: new RegExp(`^${download}`) }) }).first();
      await row.waitFor();
      // The reader's clock and language, not UTC: what they read is the local time of the expiry.
      const local = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(expires);
      assert.equal(flat(await row.getByText(until).innerText()), flat(`${until} ${local}`));
      await screenshot(w.page, `notifications-export-link-${language}`);
      const saved = w.page.waitForEvent('download');
      await row.getByRole('button', { name: new RegExp(`^${download}`) }).click();
      assert.match((await saved).suggestedFilename(), /\.(xlsx|csv)$/);
      // The bell shows the same.
      await w.page.getByRole('button', { name: /Notifications, \d+ unread|通知，\d+ 条未读/ }).click();
      const popover = w.page.getByRole('tooltip');
      await popover.getByRole('button', { name: new RegExp(`^${download}`) }).first().waitFor();
      assert.equal(flat(await popover.getByText(until).first().innerText()), flat(`${until} ${local}`));
      await w.page.waitForTimeout(300); // the popover's opening animation, for the screenshot
      await screenshot(w.page, `notifications-export-link-bell-${language}`);
      assert.deepEqual(w.errors, []);
      assert.deepEqual(w.failed, []);
      await w.context.close();
    }
  });

  test('after a switch of language, notifications pushed live arrive in the new language', async () => {
    const who = await seedAdmin(server.app, { permissions: ['admin.export'], menus: ['notification'] });
    const w = await newPage(browser, 'en-US');
    await signedIn(w.page, server.base, who.username, who.password);
    await w.page.goto(`${server.base}/notifications`);
    // The socket is opened again with a ticket asked for in Chinese.
    await w.page.getByRole('button', { name: /Notifications, \d+ unread/ }).waitFor();
    const ticket = w.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/ws/ticket' && r.request().headers()['accept-language'] === 'zh-CN')
      .then(async (r) => ((await r.json()) as { data: { ticket: string } }).data.ticket);
    const socket = w.page.waitForEvent('websocket', async (ws) => new URL(ws.url()).searchParams.get('ticket') === await ticket);
    await w.page.getByText('中文').click();
    await socket;
    const token = await login(server.app, who.username, who.password);
    const task = await call(server.app, 'POST', '/api/admin/admins/export', { token, body: { username: who.username } });
    assert.equal(task.status, 200, JSON.stringify(task.body));
    await w.page.locator('.ant-notification').getByText('导出完成').waitFor();
    await screenshot(w.page, 'notifications-live-after-language-switch');
    assert.deepEqual(w.errors, []);
    await w.context.close();
  });

  test('the profile changes the password (the old one no longer signs in) and turns on an authenticator', async () => {
    const who = await seedAdmin(server.app, { menus: ['notification'] });
    const w = await newPage(browser);
    await signedIn(w.page, server.base, who.username, who.password);
    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.getByRole('menuitem', { name: 'Profile' }).click();
    await w.page.waitForURL(/\/profile$/);
    await w.page.getByText(who.username, { exact: true }).waitFor();

    // The form checks as the server does before sending.
    await w.page.getByLabel('Current password').fill(who.password);
    await w.page.getByLabel('New password', { exact: true }).fill('short');
    await w.page.getByLabel('Confirm the new password').fill('other');
    await w.page.getByRole('button', { name: 'Change password' }).click();
    await w.page.getByText('At least 12 characters', { exact: true }).waitFor();
    await w.page.getByText('The two passwords differ').waitFor();
    // A wrong current password: the server's refusal is shown next to that field.
    await w.page.getByLabel('Current password').fill('Not-my-password-1');
    await w.page.getByLabel('New password', { exact: true }).fill('Brand-new-pass-7');
    await w.page.getByLabel('Confirm the new password').fill('Brand-new-pass-7');
    await w.page.getByRole('button', { name: 'Change password' }).click();
    await w.page.locator('#change-password_old_password_help').getByText('old_password is incorrect').waitFor();
    await w.page.getByLabel('Current password').fill(who.password);
    await w.page.getByRole('button', { name: 'Change password' }).click();
    await w.page.getByText('Password changed').waitFor();
    assert.equal((await call(server.app, 'POST', '/api/admin/login', { body: { username: who.username, password: who.password } })).status, 401);
    assert.equal((await call(server.app, 'POST', '/api/admin/login', { body: { username: who.username, password: 'Brand-new-pass-7' } })).status, 200);

    await w.page.getByRole('button', { name: 'Set up an authenticator' }).click();
    await w.page.getByRole('img', { name: 'QR code of the authenticator secret' }).waitFor();
    const secret = (await w.page.getByText(/^[A-Z2-7]{16,64}$/).innerText()).trim();
    await screenshot(w.page, 'profile-authenticator');
    // A wrong code is said next to the field in words, without "Parameter validation failed:".
    const wrong = totpCode(secret) === '000000' ? '111111' : '000000';
    await w.page.getByLabel('Authenticator code').fill(wrong);
    await w.page.getByRole('button', { name: 'Turn on' }).click();
    const help = w.page.locator('#code_help');
    await help.waitFor();
    assert.match(await help.innerText(), /authenticator code/i);
    assert.equal(await w.page.getByText(/Parameter validation failed/).count(), 0);
    await screenshot(w.page, 'profile-authenticator-wrong-code');
    await w.page.getByLabel('Authenticator code').fill(totpCode(secret));
    await w.page.getByRole('button', { name: 'Turn on' }).click();
    // The recovery codes, shown once, before the card says the authenticator is on.
    const codes = w.page.getByRole('list', { name: 'Recovery codes' });
    await codes.waitFor();
    assert.equal(await codes.getByRole('listitem').count(), 10);
    await w.page.getByRole('checkbox', { name: 'I have saved these codes somewhere safe' }).check();
    await w.page.getByRole('button', { name: 'Done' }).click();
    await w.page.getByText('An authenticator app protects this account').waitFor();
    const [row] = await server.app.platform.db.query<{ totp_secret: string | null }>('SELECT totp_secret FROM admin.admins WHERE id = $1', [who.id]);
    assert.equal(row?.totp_secret, secret);
    await screenshot(w.page, 'profile');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, ['PUT /api/admin/password 400', 'POST /api/admin/google-authenticator/bind 400']);
    await w.context.close();
  });

  test('the screens in Chinese', async () => {
    const w = await newPage(browser, 'zh-CN');
    await signedIn(w.page, server.base, 'admin', ADMIN_PASSWORD);
    await w.page.goto(`${server.base}/attachments`);
    await w.page.getByRole('button', { name: '上传大文件' }).waitFor();
    // A file of its own (the first test deletes the one it uploads).
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'upload-')), 'field-report.txt');
    writeFileSync(file, 'field report line\n');
    const chooser = w.page.waitForEvent('filechooser');
    await w.page.getByRole('button', { name: '上传文件' }).click();
    await (await chooser).setFiles(file);
    await w.page.getByText('field-report.txt 已上传').waitFor();
    await w.page.getByRole('row', { name: /field-report\.txt/ }).waitFor();
    await screenshot(w.page, 'files-zh');
    await w.page.goto(`${server.base}/notifications`);
    await w.page.getByRole('button', { name: '发送通知' }).waitFor();
    await screenshot(w.page, 'notifications-zh');
    await w.page.goto(`${server.base}/profile`);
    await w.page.getByRole('button', { name: '修改密码' }).waitFor();
    await screenshot(w.page, 'profile-zh');
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.failed, []);
    await w.context.close();
  });
});
