// The platform's export-task mechanism on its own table (a scratch schema, so the admin
// service's worker does not see these tasks): CSV escaping, the run of a task, recovery of
// tasks abandoned by a crashed instance, failures, and the expiry cleanup.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { csvCell, csvLine } from '../../src/platform/jobs/csv.ts';
import { exportKind } from '../../src/platform/jobs/export-kinds.ts';
import { ExportTasks } from '../../src/platform/jobs/export-tasks.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

describe('CSV cells', () => {
  test('quotes separators, quotes and line breaks', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell('中文'), '中文');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(undefined), '');
    assert.equal(csvLine([1, 'x,y', null]), '1,"x,y",\r\n');
  });

  test('guards text that a spreadsheet would run as a formula; numbers stay numbers', () => {
    assert.equal(csvCell('=1+2'), "'=1+2");
    assert.equal(csvCell('+33 1 23'), "'+33 1 23");
    assert.equal(csvCell('-5'), "'-5");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tx'), "'\tx");
    assert.equal(csvCell('\rx'), `"'\rx"`);
    assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
    assert.equal(csvCell(-5), '-5');
    assert.equal(csvCell(3.5), '3.5');
    assert.equal(csvCell(true), 'true');
    assert.equal(csvCell(new Date('2026-01-02T03:04:05Z')), '2026-01-02T03:04:05.000Z');
  });
});

describe('ExportTasks', () => {
  let app: TestApp;
  let tasks: ExportTasks;
  const SCHEMA = 'export_test';

  before(async () => {
    app = await startApp();
    await app.platform.db.transaction(async (tx) => {
      await tx.script(`CREATE SCHEMA ${SCHEMA}; CREATE TABLE ${SCHEMA}.export_tasks (LIKE admin.export_tasks INCLUDING ALL);`);
    });
    tasks = new ExportTasks({
      db: app.platform.db,
      schema: SCHEMA,
      storage: app.platform.storage,
      logger: pino({ level: 'silent' }),
      ttlHours: 1,
      progressEvery: 2,
      kinds: {
        numbers: exportKind<{ n: number; label: string }>({
          columns: [{ header: 'n', value: (r) => r.n }, { header: 'label', value: (r) => r.label }],
          async *rows(params) {
            for (let n = 1; n <= Number(params.count); n++) yield { n, label: n === 2 ? '=cmd' : `row ${n}` };
          },
        }),
        broken: exportKind<number>({
          columns: [{ header: 'x', value: (r) => r }],
          async *rows() {
            yield 1;
            throw new Error('the source went away');
          },
        }),
      },
    });
  });
  after(async () => {
    await tasks?.stop();
    await app?.close();
  });

  const row = async (id: number) => (await tasks.get(id))!;

  test('a task runs to a CSV file that expires after the ttl', async () => {
    const task = await tasks.create('numbers', { count: 5 }, 7);
    assert.equal(task.status, 'pending');
    assert.equal(task.owner_id, 7);
    assert.equal(await tasks.runOnce(), true);
    const done = await row(task.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.rows_written, 5);
    assert.equal(done.attempts, 1);
    assert.equal(done.locked_by, null);
    const ttl = done.expires_at!.getTime() - done.finished_at!.getTime();
    assert.ok(Math.abs(ttl - 3_600_000) < 2000, String(ttl));
    const file = await tasks.open(done);
    assert.ok(file);
    assert.equal(Buffer.concat(await file.body.toArray()).toString('utf8'), "\uFEFFn,label\r\n1,row 1\r\n2,'=cmd\r\n3,row 3\r\n4,row 4\r\n5,row 5\r\n");
    assert.equal(await tasks.runOnce(), false, 'nothing left to claim');
  });

  test('a processing task with an old heartbeat (crashed instance) is put back and retried', async () => {
    const [stale] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO ${SCHEMA}.export_tasks (kind, params, status, attempts, locked_by, started_at, heartbeat_at)
       VALUES ('numbers', '{"count": 3}', 'processing', 1, 'dead-instance', now() - interval '5 minutes', now() - interval '5 minutes') RETURNING id`,
    );
    const [fresh] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO ${SCHEMA}.export_tasks (kind, params, status, attempts, locked_by, started_at, heartbeat_at)
       VALUES ('numbers', '{"count": 3}', 'processing', 1, 'live-instance', now(), now()) RETURNING id`,
    );
    assert.equal(await tasks.recoverStale(), 1);
    assert.equal((await row(Number(stale!.id))).status, 'pending');
    assert.equal((await row(Number(fresh!.id))).status, 'processing', 'a live worker keeps its task');
    assert.equal(await tasks.runOnce(), true);
    const done = await row(Number(stale!.id));
    assert.equal(done.status, 'completed');
    assert.equal(done.rows_written, 3);
    assert.equal(done.attempts, 2);
    await app.platform.db.query(`DELETE FROM ${SCHEMA}.export_tasks WHERE id = $1`, [fresh!.id]);
  });

  test('a task abandoned on its last attempt fails instead', async () => {
    const [stale] = await app.platform.db.query<{ id: number }>(
      `INSERT INTO ${SCHEMA}.export_tasks (kind, params, status, attempts, locked_by, heartbeat_at)
       VALUES ('numbers', '{"count": 3}', 'processing', 3, 'dead-instance', now() - interval '5 minutes') RETURNING id`,
    );
    assert.equal(await tasks.recoverStale(), 1);
    const failed = await row(Number(stale!.id));
    assert.equal(failed.status, 'failed');
    assert.match(failed.error!, /abandoned/);
    assert.equal(await tasks.runOnce(), false);
  });

  test('a producer error fails the task with its message and leaves no file', async () => {
    const task = await tasks.create('broken', {}, null);
    assert.equal(await tasks.runOnce(), true);
    const failed = await row(task.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, 'the source went away');
    assert.equal(failed.file_name, null);
    assert.equal(tasks.downloadable(failed), undefined);
  });

  test('the cleanup deletes expired files and marks their tasks expired', async () => {
    const task = await tasks.create('numbers', { count: 1 }, 1);
    await tasks.runOnce();
    const done = await row(task.id);
    const file = tasks.downloadable(done)!.key;
    assert.ok(await app.platform.storage.stat(file));
    await app.platform.db.query(`UPDATE ${SCHEMA}.export_tasks SET expires_at = now() - interval '1 second' WHERE id = $1`, [task.id]);
    assert.equal(tasks.downloadable(await row(task.id)), undefined);
    assert.equal(await tasks.cleanup(), 1);
    assert.equal((await row(task.id)).status, 'expired');
    assert.equal(await app.platform.storage.stat(file), null);
  });

  test('the cleanup removes the pending file of a write whose claim is gone (a crashed instance), never one of a running task', async () => {
    const storage = app.platform.storage;
    const task = await tasks.create('numbers', { count: 1 }, 1);
    await app.platform.db.query(`UPDATE ${SCHEMA}.export_tasks SET status = 'processing', attempts = 2, locked_by = 'elsewhere', heartbeat_at = now() WHERE id = $1`, [task.id]);
    const running = `export-export-test-${task.id}-2`;
    const crashed = `export-export-test-${task.id}-1`;
    const gone = 'export-export-test-999999-1';
    for (const owner of [running, crashed, gone]) await storage.write(Readable.from([Buffer.from('half a file')]), { owner });
    await tasks.cleanup();
    const left = await storage.pendingOwners();
    assert.ok(left.includes(running));
    assert.ok(!left.includes(crashed) && !left.includes(gone), left.join(', '));
    await storage.discardPending(running);
    await app.platform.db.query(`UPDATE ${SCHEMA}.export_tasks SET status = 'failed', locked_by = NULL WHERE id = $1`, [task.id]);
  });

  test('the started worker picks up a new task at once and stops cleanly', async () => {
    tasks.start();
    const task = await tasks.create('numbers', { count: 2 }, 1);
    const deadline = Date.now() + 5000;
    while ((await row(task.id)).status !== 'completed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await row(task.id)).status, 'completed');
    await tasks.stop();
  });
});
