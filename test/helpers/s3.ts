// An S3-compatible server of a test's own, with a bucket: moto's server (moto_server, which this
// kind of machine's Python has) on a free port, behind a proxy process (s3-proxy.ts) on another
// free port of 127.0.0.1. The proxy's port is the store's address: stop() closes it
// (connections reset, new ones refused) and start() opens it again on the same port with the
// objects still there, as a store's network outage, or a restart over its disk, would;
// freeze() stops moto's process (connections stay open, nothing answers).
//
// Why moto rather than s3rver, the S3 server on npm: s3rver 3.7.1 (its latest, 2021) does not
// implement ListMultipartUploads, ListParts, AbortMultipartUpload or UploadPartCopy, which the
// driver needs to discard a write in progress, sweep abandoned uploads and commit objects over
// 5 GiB; and with the AWS SDK's default checksums it stores the aws-chunked framing of a
// streamed body inside the object (silently wrong bytes). moto implements all of them, S3's
// 5 MiB minimum part and Content-MD5 checks, and answers with S3's errors. Where moto_server is
// missing, the S3 tests are skipped with the reason (s3Skip).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlledServer } from './services.ts';

export interface S3Server extends ControlledServer {
  /** The store's address (the proxy's). */
  readonly url: string;
  readonly bucket: string;
  /** The configuration that points a server at this store (STORAGE_DRIVER=s3 and the S3_* variables). */
  readonly env: Record<string, string>;
}

const MOTO = 'moto_server';
const START_LIMIT_MS = 30_000;

/** Why the S3 server cannot run here, or false. */
export function s3Skip(): string | false {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((d) => existsSync(path.join(d, MOTO))) ? false : `needs ${MOTO} (Python's moto[server]) on PATH`;
}

/** Processes still running when the test process exits (a timeout, a failure) are killed with it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Resolves with the port `child` names in what `said()` returns (`pattern`'s first group), polled, once it listens. */
async function portOf(what: string, child: ChildProcess, said: () => string, pattern: RegExp): Promise<number> {
  running.add(child);
  let exited: string | undefined;
  child.once('exit', (code) => (exited = `${what} exited (${code})`));
  child.once('error', (err) => (exited = `${what} could not start: ${err.message}`));
  for (const start = Date.now(); ; await sleep(20)) {
    const port = pattern.exec(said())?.[1];
    if (port) return Number(port);
    const problem = exited ?? (Date.now() - start > START_LIMIT_MS ? `${what} did not start within ${START_LIMIT_MS} ms` : undefined);
    if (problem) {
      child.kill('SIGKILL');
      throw new Error(`${problem}: ${said().slice(-500)}`);
    }
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  }
  running.delete(child);
}

export async function startS3(bucket = 'fieldops-test'): Promise<S3Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-s3-'));
  // Objects past moto's in-memory buffer spill to temporary files: this test's folder. Its log
  // (a line per request) goes to a file there, never to a pipe that a busy test could leave full.
  const log = path.join(dir, 'moto.log');
  const logFd = openSync(log, 'w');
  const moto = spawn(MOTO, ['-H', '127.0.0.1', '-p', '0'], { env: { ...process.env, TMPDIR: dir }, stdio: ['ignore', 'ignore', logFd] });
  closeSync(logFd);
  let motoPort: number;
  try {
    motoPort = await portOf(MOTO, moto, () => readFileSync(log, 'utf8'), /Running on http:\/\/127\.0\.0\.1:(\d+)/);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const proxy = spawn(process.execPath, [path.join(import.meta.dirname, 's3-proxy.ts'), String(motoPort)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let said = '';
  proxy.stdout!.on('data', (d: Buffer) => (said += d.toString()));
  let port: number;
  try {
    port = await portOf('the S3 proxy', proxy, () => said, /^(\d+)\n/);
  } catch (err) {
    await stopProcess(moto);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  /** Sends `command` to the proxy and waits for it to be done. */
  const tell = (command: 'stop' | 'start') =>
    new Promise<void>((resolve) => {
      const done = (answer: unknown) => {
        if (answer !== command) return;
        proxy.off('message', done);
        resolve();
      };
      proxy.on('message', done);
      proxy.send(command);
    });
  const url = `http://127.0.0.1:${port}`;
  const server: S3Server = {
    url,
    port,
    bucket,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: url,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'test-key',
      S3_SECRET_ACCESS_KEY: 'test-secret-key',
    },
    stop: () => tell('stop'),
    start: () => tell('start'),
    freeze: () => void moto.kill('SIGSTOP'),
    thaw: () => void moto.kill('SIGCONT'),
    async destroy() {
      await stopProcess(proxy);
      await stopProcess(moto);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // moto checks no signature: the bucket is made with a plain request.
    const made = await fetch(`${url}/${bucket}`, { method: 'PUT' });
    if (!made.ok) throw new Error(`creating the bucket ${bucket}: HTTP ${made.status} ${await made.text()}`);
  } catch (err) {
    await server.destroy();
    throw err;
  }
  return server;
}
