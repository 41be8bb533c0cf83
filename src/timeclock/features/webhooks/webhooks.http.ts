// Sending one webhook request: HMAC signature, a hard timeout over the whole exchange, and
// (when private targets are not allowed) a resolver that refuses loopback, private,
// link-local and other non-public addresses, checked on the address actually connected to,
// so a DNS answer that changes after registration cannot reach the internal network.
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { nodeHttp as http } from '../../../platform/http/node-http.ts';
import { msg, type Msg, translate } from '../../../platform/i18n.ts';

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) NON_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address is loopback, private, link-local, reserved or otherwise not public. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1]!, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

/** Host of a URL without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Why a URL's host is refused when private targets are not allowed (literal addresses and `localhost` only; names are checked when connecting). */
export function privateHostProblem(url: URL): Msg | null {
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return msg('timeclock.webhooks.localName', { host });
  if (isIP(host) && isNonPublicAddress(host)) return msg('timeclock.webhooks.notPublicAddress', { host });
  return null;
}

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const allowed = addresses.filter((a) => !isNonPublicAddress(a.address));
    if (allowed.length === 0) {
      return callback(Object.assign(new Error(`${hostname} resolves only to non-public addresses`), { code: 'EADDRNOTPUBLIC' }), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    return callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  /** Why it failed (status and the start of the answer, or the network error); null on success. */
  error: string | null;
}

const SNIPPET = 500;

/**
 * POSTs `body` to `url`. Success is a 2xx answer; redirects are not followed (a 3xx is a
 * failure). The whole exchange must finish within `timeoutMs`; `signal` aborts it early.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean; signal: AbortSignal },
): Promise<SendResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: null, error: 'invalid URL' };
  }
  if (!opts.allowPrivate) {
    const problem = privateHostProblem(target);
    // Delivery records are operators' data, kept in English.
    if (problem) return { ok: false, status: null, error: `refused: ${translate(problem, 'en-US')}` };
  }
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const fail = (err: unknown) => {
      const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
      const message = timedOut ? `no answer within ${opts.timeoutMs} ms` : err instanceof Error ? err.message : String(err);
      done({ ok: false, status: null, error: message.slice(0, SNIPPET) });
    };
    const req = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      signal,
      ...(opts.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    }, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < SNIPPET) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('error', fail);
      res.on('end', () => {
        if (status >= 200 && status < 300) return done({ ok: true, status, error: null });
        const text = Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET);
        done({ ok: false, status, error: `HTTP ${status}${text ? `: ${text}` : ''}` });
      });
    });
    req.on('error', fail);
    req.end(body);
  });
}
