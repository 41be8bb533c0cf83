// Files on several hosts (issue 32), through the API of instances that share one PostgreSQL
// database and one S3 bucket (a moto server of the test's own, test/helpers/s3.ts) but no data
// folder: a chunked upload whose chunks alternate between two instances, merged on either and
// downloaded byte-identical from both, with none of its bytes in either data folder; a merge
// interrupted by killing its instance (a server run as a child process, SIGKILLed while it
// assembles) finished by the other once the merge's lease has expired, with nothing of the dead
// merge left in the bucket after the sweep; and the store stopped for 10 s while uploads, chunked
// uploads, merges and downloads keep coming on both instances: every failure a 503 naming the
// file storage within DEPENDENCY_TIMEOUT_MS, never a 500, usable again within 2 s of the store's
// return, and nothing accepted lost (before the outage or under the load).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { assemblyOwner, MERGE_LEASE_MS } from '../../src/admin/features/attachments/attachments.chunks.ts';
import { AttachmentsService } from '../../src/admin/features/attachments/attachments.service.ts';
import { closeAll, onPostgres, startWithSibling, type TestApp } from '../helpers/app.ts';
import { assertError, assertOk } from '../helpers/assert.ts';
import { call, login, type Reply } from '../helpers/http.ts';
import { chunkParts, newChunkId, pdf, png, postForm, sha256, split, type Chunk } from '../helpers/uploads.ts';
import { s3Skip, startS3, type S3Server } from '../helpers/s3.ts';

const MiB = 1024 * 1024;
const EN = { 'accept-language': 'en-US' };
const upload = (on: TestApp, token: string, filename: string, data: Buffer) =>
  postForm(on, '/attachments/upload', token, [{ name: 'type', value: 'image' }, { name: 'file', filename, data }], EN);
const sendChunk = (on: TestApp, token: string, c: Chunk) => postForm(on, '/attachments/chunk', token, chunkParts(c), EN);
const merge = (on: TestApp, token: string, body: { chunk_id: string; filename: string; total_chunks: number }) =>
  call(on, 'POST', '/api/admin/attachments/merge', { token, body, headers: EN });

const download = (on: TestApp, token: string, url: string) =>
  on.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'accept-language': 'en-US' } });

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]!, i);
    }
  }));
}

/** How late the killed instance's path to the store answers a read of a chunk. */
const CHUNK_READ_DELAY_MS = 150;
/** How long the outage test stops the store (the 10 s). */
const OUTAGE_MS = 10_000;
/** Between two requests of one loop of the outage test's load. */
const LOAD_PAUSE_MS = 50;

/**
 * A network path to the store at `target` that forwards every request, holding reads of chunk
 * objects (GETs under `chunks/`) `delayMs` first.
 */
async function slowPath(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const store = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const forward = () => {
      const upstream = request({ host: store.hostname, port: store.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    };
    const chunkRead = incoming.method === 'GET' && new URL(incoming.url ?? '/', store).pathname.includes('/chunks/');
    if (chunkRead) setTimeout(forward, delayMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface ServerProcess {
  /** The server's address, once it listens. */
  readonly listening: Promise<string>;
  /** How it ended: the signal that killed it, or its exit code. */
  readonly exited: Promise<NodeJS.Signals | number | null>;
  kill(): void;
}

/** The server run as `node src/main.ts` with `env` (and a free port), as on a host of its own. */
function serverProcess(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...env, PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let output = '';
  const listening = new Promise<string>((resolve, reject) => {
    const said = (d: Buffer) => {
      // Only the start is kept (the address is in it); later lines are read and dropped.
      if (output.length > 20_000) return;
      output += d.toString();
      const m = /listening on (http:\/\/[^ ]+) /.exec(output);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', said);
    child.stderr.on('data', said);
    child.once('exit', (code, signal) => reject(new Error(`the server exited (${signal ?? code}): ${output.slice(-2000)}`)));
  });
  // Awaited by the test that uses it; a failure to start is reported there.
  listening.catch(() => {});
  return { listening, exited, kill: () => void child.kill('SIGKILL') };
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)).filter((f) => statSync(f).isFile());
}

const skip = (!onPostgres && 'needs PostgreSQL (TEST_DATABASE_URL)') || s3Skip();

describe('instances on two data folders and one bucket', { skip }, () => {
  let s3: S3Server | undefined;
  let one: TestApp | undefined;
  let two: TestApp | undefined;
  let token: string;
  /** The instance the merge test kills, started here so that its (slow, cold) start overlaps the first test. */
  let doomed: ServerProcess | undefined;
  let doomedDir: string | undefined;
  let slow: Awaited<ReturnType<typeof slowPath>> | undefined;
  before(async () => {
    s3 = await startS3();
    // DEPENDENCY_TIMEOUT_MS as the storage contract suite gives moto: with the default 3 s a
    // request silent for 1 s has a probe run, limited to 1 s, and on a loaded machine (two cores
    // shared with moto, which answers one request at a time, PostgreSQL's checkpoints and other
    // tests) a probe of the database or the store answered late: a false outage, 503 to a request
    // of a test that is not about it. The outage below is real: the stopped store refuses
    // connections, which fails requests at once whatever the timeout.
    [one, two] = await startWithSibling({ ...s3.env, S3_PREFIX: 'cluster', DEPENDENCY_TIMEOUT_MS: '10000' });
    // On the database, Redis and bucket of the others, with a data folder of its own. It reaches
    // the store through a path that answers its reads of chunks late (as a distant host's would
    // be): its merge, which reads the chunks one after the other, then lasts seconds whatever the
    // machine's load, and is still assembling when it is killed.
    slow = await slowPath(s3.url, CHUNK_READ_DELAY_MS);
    doomedDir = mkdtempSync(path.join(tmpdir(), 'fieldops-proc-'));
    doomed = serverProcess({ ...one.env, S3_ENDPOINT: slow.url, DATA_DIR: doomedDir });
    token = await login(one);
  });
  after(async () => {
    doomed?.kill();
    await doomed?.exited;
    await slow?.close();
    if (doomedDir) rmSync(doomedDir, { recursive: true, force: true });
    await closeAll(two, one);
    await s3?.destroy();
  });

  const sessionOf = async (chunkId: string) =>
    (await one!.platform.db.query<{ status: string; merge_token: string | null; lease_left_ms: number }>(
      `SELECT status, merge_token, (extract(epoch FROM (updated_at + make_interval(secs => $2) - now())) * 1000)::int AS lease_left_ms
         FROM admin.upload_sessions WHERE chunk_id = $1`,
      [chunkId, MERGE_LEASE_MS / 1000],
    ))[0]!;
  const attachmentsWith = async (hash: string) =>
    (await one!.platform.db.query<{ n: number }>('SELECT count(*)::int AS n FROM admin.attachments WHERE sha256 = $1', [hash]))[0]!.n;
  /** The objects under the prefix's `files/` (every committed attachment), by listing the bucket. */
  const storedFiles = async () => {
    const storage = one!.platform.storage;
    let n = 0;
    for (const dir of await storage.list('files')) n += (await storage.list(`files/${dir.name}`)).length;
    return n;
  };

  test('a chunked upload whose chunks alternate between the instances merges on either and downloads byte-identical from both; neither data folder holds its bytes', async () => {
    // Over 5 MiB: the merged file is assembled in several parts of a multipart upload.
    const data = pdf(6 * MiB + 123);
    const pieces = split(data, MiB);
    const chunk_id = newChunkId();
    const body = { chunk_id, filename: 'cluster.pdf', total_chunks: pieces.length };
    await inParallel(pieces, 2, async (p, index) => {
      assertOk(await sendChunk(index % 2 ? two! : one!, token, { chunk_id, index, total: pieces.length, filename: body.filename, data: p }));
    });
    const state = assertOk(await call(two!, 'GET', `/api/admin/attachments/chunk/${chunk_id}`, { token }));
    assert.deepEqual(state.missing, []);
    assert.equal(state.received_bytes, data.length);

    // Merged from both at once: one claim wins, the other waits for it and answers the same attachment.
    const merged = (await Promise.all([merge(two!, token, body), merge(one!, token, body)])).map(assertOk);
    assert.equal(merged[0].id, merged[1].id);
    assert.equal(merged[0].sha256, sha256(data));
    assert.equal(await attachmentsWith(sha256(data)), 1);
    for (const on of [one!, two!]) {
      const res = await download(on, token, merged[0].url);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-length'], String(data.length));
      assert.equal(sha256(res.rawPayload), sha256(data));
    }
    // Its chunks are gone from the bucket, and nothing is left pending.
    assert.deepEqual(await one!.platform.storage.list('chunks'), []);
    assert.deepEqual(await one!.platform.storage.pendingOwners(), []);

    // No file of either data folder holds a piece of it (samples of every chunk).
    const samples = pieces.map((p) => p.subarray(100, 164));
    for (const on of [one!, two!]) {
      const dir = on.env.DATA_DIR!;
      for (const file of filesUnder(dir)) {
        const content = readFileSync(file);
        assert.ok(!samples.some((s) => content.includes(s)), `${path.relative(dir, file)} holds bytes of the upload`);
      }
    }
  });

  test('a merge interrupted by killing its instance is finished by the other once its lease has expired; nothing of it is left after the sweep', { timeout: 180_000 }, async () => {
    const pieces = Array.from({ length: 24 }, (_, i) => (i === 0 ? pdf(64 * 1024) : randomBytes(64 * 1024)));
    const data = Buffer.concat(pieces);
    const chunk_id = newChunkId();
    const body = { chunk_id, filename: 'killed.pdf', total_chunks: pieces.length };

    // Chunks to both in-process instances while the other one finishes starting.
    const [base] = await Promise.all([
      doomed!.listening,
      inParallel(pieces, 2, async (p, index) => {
        assertOk(await sendChunk(index % 2 ? two! : one!, token, { chunk_id, index, total: pieces.length, filename: body.filename, data: p }));
      }),
    ]);
    const filesBefore = await storedFiles();

    const merging = fetch(`${base}/api/admin/attachments/merge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => `answered ${r.status}`, () => 'cut off');
    // Killed while assembling: its claim in the database, its partial file in the bucket.
    let claim: string | null = null;
    for (const start = Date.now(); ; await sleep(20)) {
      assert.ok(Date.now() - start < 30_000, 'the merge was not seen assembling');
      const session = await sessionOf(chunk_id);
      assert.notEqual(session.status, 'merged', 'the merge ended before it could be killed');
      claim = session.status === 'merging' ? session.merge_token : null;
      if (claim && (await one!.platform.storage.pendingOwners()).includes(assemblyOwner(claim))) break;
    }
    doomed!.kill();
    assert.equal(await doomed!.exited, 'SIGKILL');
    assert.equal(await merging, 'cut off');
    const since = Date.now();
    const dead = await sessionOf(chunk_id);
    assert.equal(dead.status, 'merging', 'killed mid-merge');
    assert.equal(dead.merge_token, claim);
    assert.ok((await one!.platform.storage.pendingOwners()).includes(assemblyOwner(claim)), 'the dead merge left its partial file');

    // The survivor waits for the dead merge's lease to run out (never taking a live claim
    // over), then merges the upload itself. The upper bound allows for its own merge and a
    // loaded machine; what it rules out is waiting for anything else than the lease.
    const created = assertOk(await merge(two!, token, body));
    const elapsed = Date.now() - since;
    // (Less 50 ms: the rounding of the two clocks, the database's and ours, on one host.)
    assert.ok(elapsed >= dead.lease_left_ms - 50, `taken over after ${elapsed} ms, ${dead.lease_left_ms} ms before its lease ran out`);
    assert.ok(elapsed < dead.lease_left_ms + 10_000, `taken over ${elapsed - dead.lease_left_ms} ms after its lease ran out`);
    assert.equal(created.sha256, sha256(data));
    assert.equal(await attachmentsWith(sha256(data)), 1);
    assert.equal((await sessionOf(chunk_id)).status, 'merged');
    for (const on of [one!, two!]) assert.equal(sha256((await download(on, token, created.url)).rawPayload), sha256(data));

    // The sweep (of any instance) leaves nothing of the dead merge, and nothing of the upload
    // but its one file.
    const { platform } = one!;
    await new AttachmentsService({ db: platform.db, storage: platform.storage, config: platform.config, logger: platform.logger }).sweep();
    assert.deepEqual(await platform.storage.pendingOwners(), []);
    assert.deepEqual(await platform.storage.list('chunks'), []);
    assert.equal(await storedFiles(), filesBefore + 1);
  });

  test('the store stopped for 10 s under upload and download load: 503s naming the file storage within the timeout, never a 500, usable again within 2 s, nothing lost', { timeout: 120_000 }, async () => {
    const instances = [one!, two!];
    const timeoutMs = one!.platform.config.DEPENDENCY_TIMEOUT_MS;
    /** Files the service accepted (answered 200), with their SHA-256. */
    const accepted: { url: string; sha256: string }[] = [];
    for (const [i, on] of [...instances, ...instances].entries()) {
      const data = png(2000 + i);
      accepted.push({ url: assertOk(await upload(on, token, 'before.png', data)).url, sha256: sha256(data) });
    }
    // Chunked uploads whose chunks were all accepted before the outage, merged after it.
    const unmerged: { body: { chunk_id: string; filename: string; total_chunks: number }; sha256: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const data = png(5000 + i);
      const pieces = split(data, 2000);
      const body = { chunk_id: newChunkId(), filename: 'unmerged.png', total_chunks: pieces.length };
      for (const [index, p] of pieces.entries()) assertOk(await sendChunk(instances[index % 2]!, token, { ...body, index, total: pieces.length, data: p }));
      unmerged.push({ body, sha256: sha256(data) });
    }
    const acceptedBefore = accepted.length;

    interface Answer {
      what: 'upload' | 'chunk' | 'merge' | 'download';
      instance: number;
      sentAt: number;
      ms: number;
      res: Reply;
    }
    const answers: Answer[] = [];
    const wrongBytes: string[] = [];
    const ask = async (what: Answer['what'], instance: number, send: () => Promise<Reply>) => {
      const sentAt = Date.now();
      const res = await send();
      answers.push({ what, instance, sentAt, ms: Date.now() - sentAt, res });
      return res;
    };
    let files = 0;
    /** An upload to `instance`, kept among the accepted files when it is answered 200. */
    const uploadTo = async (instance: number) => {
      const data = png(1000 + files++);
      const res = await ask('upload', instance, () => upload(instances[instance]!, token, 'load.png', data));
      if (res.status === 200) accepted.push({ url: res.body.data.url, sha256: sha256(data) });
    };
    /** A download of `file` from `instance`; bytes that are not the file's are noted. */
    const downloadFrom = (instance: number, file: { url: string; sha256: string }) =>
      ask('download', instance, async () => {
        const r = await download(instances[instance]!, token, file.url);
        if (r.statusCode === 200 && sha256(r.rawPayload) !== file.sha256) wrongBytes.push(file.url);
        let answer: unknown = r.body;
        try {
          answer = r.json();
        } catch {
          /* not JSON: the file, or an unexpected answer shown as it is */
        }
        return { status: r.statusCode, headers: r.headers, body: r.statusCode === 200 ? null : answer };
      });
    let running = true;
    const uploads = async (instance: number) => {
      while (running) {
        await uploadTo(instance);
        await sleep(LOAD_PAUSE_MS);
      }
    };
    const downloads = async (instance: number) => {
      for (let i = 0; running; i++) {
        await downloadFrom(instance, accepted[i % accepted.length]!);
        await sleep(LOAD_PAUSE_MS);
      }
    };
    // Chunked uploads, each chunk to the other instance than the one before, merged on either.
    const chunked = async () => {
      for (let i = 0; running; i++, await sleep(LOAD_PAUSE_MS)) {
        const data = png(3000 + i);
        const pieces = split(data, 1500);
        const chunk_id = newChunkId();
        let sent = true;
        for (const [index, p] of pieces.entries()) {
          const res = await ask('chunk', index % 2, () => sendChunk(instances[index % 2]!, token, { chunk_id, index, total: pieces.length, filename: 'load.png', data: p }));
          sent &&= res.status === 200;
          if (!sent) break;
        }
        if (!sent) continue;
        const res = await ask('merge', i % 2, () => merge(instances[i % 2]!, token, { chunk_id, filename: 'load.png', total_chunks: pieces.length }));
        if (res.status === 200) accepted.push({ url: res.body.data.url, sha256: sha256(data) });
      }
    };
    const load = Promise.all([uploads(0), uploads(1), downloads(0), downloads(1), chunked()]);
    let stoppedAt = 0;
    const refusedMerges: number[] = [];
    let startedAt = 0;
    try {
      // The load served for a while first (on a loaded machine a request can take a second).
      await sleep(1_000);
      for (const until = Date.now() + 30_000; answers.filter((a) => a.res.status === 200).length < 4; await sleep(50)) {
        assert.ok(Date.now() < until, 'the load was not served before the outage');
      }
      await s3!.stop();
      stoppedAt = Date.now();
      // A merge during the outage is refused too; its upload stays mergeable.
      for (const [i, u] of unmerged.entries()) refusedMerges.push((await ask('merge', i % 2, () => merge(instances[i % 2]!, token, u.body))).status);
      await sleep(stoppedAt + OUTAGE_MS - Date.now());
      await s3!.start();
      startedAt = Date.now();
      // Besides the loops (whose next request waits for the answer to the last, which a loaded
      // machine can delay by a second), an upload and a download to each instance every 100 ms
      // until each has succeeded there: when the service is back is then known to 100 ms.
      const probes: Promise<unknown>[] = [];
      const back = (instance: number, what: Answer['what']) =>
        answers.some((a) => a.instance === instance && a.what === what && a.sentAt >= startedAt && a.res.status === 200);
      for (; Date.now() - startedAt < 3_000; await sleep(100)) {
        for (const [instance] of instances.entries()) {
          if (!back(instance, 'upload')) probes.push(uploadTo(instance));
          if (!back(instance, 'download')) probes.push(downloadFrom(instance, accepted[0]!));
        }
      }
      await Promise.all(probes);
    } finally {
      running = false;
      await load;
      if (stoppedAt > 0 && startedAt === 0) await s3!.start();
    }

    // Every answer is a success or a 503 in the envelope naming the file storage, in time.
    const unexpected = answers.filter((a) => a.res.status !== 200 && a.res.status !== 503);
    assert.deepEqual(unexpected.map((a) => `${a.what}: ${a.res.status} ${JSON.stringify(a.res.body)}`), []);
    const refused = answers.filter((a) => a.res.status === 503);
    assert.ok(refused.length > 0, 'the outage was felt');
    for (const a of refused) {
      assertError(a.res, 503, 50006);
      assert.match(a.res.body.message, /file storage unreachable/, a.what);
      assert.ok(a.res.headers['retry-after'], a.what);
      // DEPENDENCY_TIMEOUT_MS bounds the wait for the store; the margin is the machine's (two
      // cores shared with the store, the database and other tests), not the service's.
      assert.ok(a.ms <= timeoutMs + 2_000, `${a.what} answered 503 after ${a.ms} ms`);
    }
    assert.ok(answers.some((a) => a.res.status === 200 && a.sentAt < stoppedAt), 'served before the outage');
    assert.deepEqual(refusedMerges, [503, 503]);
    // Usable again within 2 s of the store's return: on each instance an upload and a download
    // sent then succeeded, and nothing sent once one had succeeded failed. Measured when the
    // request was sent: how long it then took is the machine's load.
    for (const [instance] of instances.entries()) {
      for (const what of ['upload', 'download'] as const) {
        const after = answers.filter((a) => a.instance === instance && a.what === what && a.sentAt >= startedAt).sort((a, b) => a.sentAt - b.sentAt);
        const first = after.find((a) => a.res.status === 200);
        assert.ok(first && first.sentAt - startedAt < 2_000, `instance ${instance}: ${what} back after ${first ? first.sentAt - startedAt : 'never'} ms`);
        const answeredAt = Math.min(...after.filter((a) => a.res.status === 200).map((a) => a.sentAt + a.ms));
        const late = after.filter((a) => a.res.status !== 200 && a.sentAt >= answeredAt);
        assert.deepEqual(late.map((a) => `${a.sentAt - startedAt} ms: ${a.res.status}`), [], `instance ${instance}: ${what} failed after it was back`);
      }
    }

    // Nothing accepted is lost: every file, from before the outage or during the load, reads back
    // byte-identical from either instance.
    assert.deepEqual(wrongBytes, []);
    assert.ok(accepted.length > acceptedBefore, 'files were accepted under load');
    for (const [i, u] of unmerged.entries()) {
      const merged = assertOk(await merge(instances[(i + 1) % 2]!, token, u.body));
      assert.equal(merged.sha256, u.sha256);
      accepted.push({ url: merged.url, sha256: u.sha256 });
    }
    for (const [i, file] of accepted.entries()) {
      const res = await download(instances[i % 2]!, token, file.url);
      assert.equal(res.statusCode, 200, `${file.url}: ${res.body}`);
      assert.equal(sha256(res.rawPayload), file.sha256, file.url);
    }
  });
});
