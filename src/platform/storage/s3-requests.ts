// How the S3 driver (s3.ts) runs each request to the store: as an operation of an Availability,
// as the database's and Redis's are, with a deadline, its failures told from the store's answers.
//
// Timeouts and outages: every request is an operation of an Availability, as the database's
// and Redis's are. A request waiting a third of DEPENDENCY_TIMEOUT_MS while the store answers
// nothing makes a probe (HeadBucket) run; a failed probe declares an outage that aborts every
// request in flight and refuses new ones at once, with StorageUnavailableError, until a probe
// (every 250 ms) succeeds. Each request also has a deadline: DEPENDENCY_TIMEOUT_MS for those
// that carry no object data (heads, lists, deletes, upload bookkeeping), a minute plus a second
// per MiB for transfers (parts, copies and completions on the server), so that even a request
// stuck on a store that answers probes ends; a read's deadline runs until the store answers,
// and its body then flows at the reader's pace (it ends with the outage if the store stops).
// Errors of the store itself (unreachable, 5xx, throttling, refused credentials, a missing
// bucket) become StorageUnavailableError; an answer about the request (no such key) keeps its
// meaning.
//
// A caller's abort signal is followed by a listener of our own, removed when the request ends,
// rather than AbortSignal.any (whose signal, the SDK's listener on it, the caller's kept alive:
// the SDK keeps requests reachable after they end; see s3.ts).
import type { Logger } from 'pino';
import { Availability, ServiceUnavailable } from '../availability.ts';
import { StorageUnavailableError } from './storage.ts';

const MiB = 1024 * 1024;
/** A transfer's deadline: this, plus TRANSFER_MS_PER_MIB for each MiB it moves. */
const TRANSFER_MS = 60_000;
const TRANSFER_MS_PER_MIB = 1_000;
const OUTAGE = 'the store is not answering; requests are refused until it does';
/** How long a readiness answer is reused, so that /readyz stays cheap. */
const CHECK_CACHE_MS = 1_000;

/** HTTP status of an S3 error, undefined when the store never answered. */
export const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
export const nameOf = (err: unknown) => (err instanceof Error ? err.name : undefined);

/** The store cannot be used (rather than: it refused this request for what it asks). */
export function isStoreFailure(err: unknown): boolean {
  if (err instanceof ServiceUnavailable) return true;
  const status = statusOf(err);
  if (status === undefined) return true; // no answer: connection refused or reset, timeout, credentials not found
  return status >= 500 || status === 401 || status === 403 || status === 429 || nameOf(err) === 'NoSuchBucket';
}

export function describe(err: unknown): string {
  const status = statusOf(err);
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const name = nameOf(err) ?? 'Error';
  const message = err instanceof Error ? err.message : String(err);
  return `${name}${status ? ` (HTTP ${status})` : code && !message.includes(code) ? ` (${code})` : ''}: ${message}`;
}

/** The deadline of a request that moves `bytes` (see the header). */
export function transferMs(bytes: number): number {
  return TRANSFER_MS + Math.ceil(bytes / MiB) * TRANSFER_MS_PER_MIB;
}

/** The requests of one S3Storage, and the availability of its store. */
export class S3Requests {
  readonly availability: Availability;
  private readonly timeoutMs: number;
  private lastCheck: { at: number; ok: boolean } | undefined;

  /** `probe`: a short request that succeeds when the store can be used (HeadBucket). */
  constructor(probe: () => Promise<unknown>, timeoutMs: number, logger: Logger) {
    this.timeoutMs = timeoutMs;
    this.availability = new Availability({ name: 'object storage', probe, timeoutMs, isConnectionError: isStoreFailure, logger });
  }

  /** Readiness: false during an outage, else whether a probe succeeds; an answer is reused for a second. */
  async check(): Promise<boolean> {
    const last = this.lastCheck;
    // Reused while the availability has not changed its mind since (an outage, or its end).
    if (last && Date.now() - last.at < CHECK_CACHE_MS && last.ok === this.availability.available) return last.ok;
    const ok = await this.availability.check();
    this.lastCheck = { at: Date.now(), ok };
    return ok;
  }

  /** Runs one request (see begin), with a deadline of DEPENDENCY_TIMEOUT_MS unless given another. */
  async call<T>(send: (signal: AbortSignal) => Promise<T>, opts: { deadlineMs?: number; caller?: AbortSignal | undefined } = {}): Promise<T> {
    const request = this.begin(opts.deadlineMs ?? this.timeoutMs, opts.caller);
    try {
      const out = await send(request.signal);
      request.end();
      return out;
    } catch (err) {
      throw request.fail(err);
    }
  }

  /**
   * Starts one request as an operation of the availability: refused at once during an outage,
   * aborted when one is declared, after `deadlineMs` (unless `answered()` first), or when
   * `caller` aborts. `fail(err)` ends it and gives the error to throw: StorageUnavailableError
   * for a failure of the store; the caller's abort, and the store's other answers, as they are.
   */
  begin(deadlineMs: number, caller: AbortSignal | undefined) {
    let op: ReturnType<Availability['begin']>;
    const controller = new AbortController();
    try {
      op = this.availability.begin(() => controller.abort(new StorageUnavailableError(OUTAGE)));
    } catch {
      throw new StorageUnavailableError(OUTAGE);
    }
    const timer = setTimeout(() => controller.abort(new StorageUnavailableError(`no answer within ${deadlineMs} ms`)), deadlineMs);
    const onCaller = () => controller.abort(caller!.reason);
    if (caller?.aborted) onCaller();
    else caller?.addEventListener('abort', onCaller, { once: true });
    const settle = () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCaller);
    };
    return {
      signal: controller.signal,
      answered: () => clearTimeout(timer),
      end: () => {
        settle();
        op.end();
      },
      fail: (err: unknown): unknown => {
        settle();
        let out = err;
        if (caller?.aborted) out = err;
        else if (controller.signal.aborted) out = controller.signal.reason;
        else if (!(err instanceof StorageUnavailableError) && isStoreFailure(err)) out = new StorageUnavailableError(describe(err), { cause: err });
        op.end(out);
        return out;
      },
    };
  }
}
