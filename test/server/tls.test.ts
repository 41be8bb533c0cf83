// HTTPS with a configured certificate and key (TLS_CERT_FILE, TLS_KEY_FILE): what a phone needs
// for its camera and position when it opens the time-clock app from another machine.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject).end();
  });

describe('HTTPS', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fieldops-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  let app: TestApp;
  let base: string;
  before(async () => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    app = await startApp({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key });
    await app.app.listen({ host: '127.0.0.1', port: 0 });
    base = `https://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
  });
  after(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the API answers over HTTPS', async () => {
    const health = await get(`${base}/api/health`);
    assert.equal(health.status, 200, health.body);
    assert.match(health.type, /json/);
  });

  test('plain HTTP on the same port is not answered as if it were HTTPS', async () => {
    const res = await fetch(base.replace('https', 'http') + '/api/health').then((r) => r.status, () => 'refused');
    assert.notEqual(res, 200);
  });

  test('a certificate without its key, or a missing file, is a configuration error', () => {
    assert.throws(() => loadConfig({ TLS_CERT_FILE: cert }), (e: unknown) => e instanceof ConfigError && /set both/.test(e.message));
    assert.throws(() => loadConfig({ TLS_CERT_FILE: cert, TLS_KEY_FILE: path.join(dir, 'nothing.pem') }), (e: unknown) => e instanceof ConfigError && /TLS_KEY_FILE=.*no such file/.test(e.message));
  });
});
