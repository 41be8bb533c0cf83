// Punches kept on the phone until the server has them. Every punch goes through this queue: it is
// stored (with the time and position of the tap and a client event id) and sent — while it is
// being stored when none of the worker's punches waits before it, otherwise after those; when no
// answer comes (no network, a 5xx, a rate limit, an ended session) it stays stored, shown as
// waiting, and is sent again later (online event, app start, a periodic retry), oldest first.
// The server dedupes by clientEventId (a replay answers the original result), so a punch whose
// answer was lost is simply sent again: it is recorded exactly once. A punch the server refuses is
// removed and reported with its reason.
// The storage is injected (PunchStore): IndexedDB in the app (idb.ts), a Map in the unit tests.

export type EventType = 'clock_in' | 'clock_out';

export interface Punch {
  clientEventId: string;
  userId: number;
  eventType: EventType;
  qrCodeValue: string;
  latitude: number;
  longitude: number;
  /** Metres, as the phone reported it (shown; not sent with the punch). */
  accuracy: number | null;
  /** ISO 8601: when the worker tapped. */
  capturedAt: string;
  /** Order of arrival in the queue (capture times may tie). */
  seq: number;
  /** Site name, when the app knows it (shown while waiting). */
  siteName?: string | null;
}

export interface PunchStore {
  all(): Promise<Punch[]>;
  put(punch: Punch): Promise<void>;
  delete(clientEventId: string): Promise<void>;
}

/** What the server answered, as far as the queue cares. */
export interface SendError {
  status: number;
  code: string;
  retryAfter?: number | undefined;
}

/** An answer that says nothing about the punch itself: keep it and try again later. */
export function isRetryable(err: SendError): boolean {
  return err.status === 0 || err.status >= 500 || err.status === 429 || err.status === 401 || err.status === 408;
}

export type Outcome<R> =
  | { punch: Punch; kind: 'sent'; reply: R }
  | { punch: Punch; kind: 'refused'; error: unknown };

export interface FlushResult<R> {
  outcomes: Outcome<R>[];
  /** Still waiting (the first could not be sent; the rest wait behind it to keep the order). */
  waiting: Punch[];
  /** Why the first waiting punch could not be sent. */
  blockedBy: unknown;
}

/** Queue order: capture time, then arrival. */
export const byOrder = (a: Punch, b: Punch) => Date.parse(a.capturedAt) - Date.parse(b.capturedAt) || a.seq - b.seq;

export class PunchQueue<R> {
  private readonly store: PunchStore;
  private readonly send: (punch: Punch) => Promise<R>;
  private readonly asSendError: (err: unknown) => SendError | null;
  private running: Promise<unknown> | null = null;
  private readonly listeners = new Set<(waiting: Punch[]) => void>();
  private seq = 0;
  /** The worker none of whose punches waits, as the last flush left them (none added since). */
  private drained: number | null = null;
  private added = 0;

  /**
   * `send` posts one punch and resolves with the server's reply or rejects; `asSendError` reads
   * the status of a rejection (null: not an answer of the server, treated as no answer).
   */
  constructor(store: PunchStore, send: (punch: Punch) => Promise<R>, asSendError: (err: unknown) => SendError | null) {
    this.store = store;
    this.send = send;
    this.asSendError = asSendError;
  }

  /** The punches waiting, oldest first. */
  async waiting(userId?: number): Promise<Punch[]> {
    const all = (await this.store.all()).sort(byOrder);
    return userId === undefined ? all : all.filter((p) => p.userId === userId);
  }

  /** Keeps a punch (before anything is sent). */
  async add(punch: Omit<Punch, 'seq'>): Promise<Punch> {
    const known = await this.store.all();
    this.seq = Math.max(this.seq, ...known.map((p) => p.seq)) + 1;
    const stored = { ...punch, seq: this.seq };
    this.added++;
    this.drained = null;
    await this.store.put(stored);
    await this.notify();
    return stored;
  }

  /** Called with the waiting punches whenever they change. */
  subscribe(listener: (waiting: Punch[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends the waiting punches of `userId`, oldest first, one at a time; stops at the first that
   * gets no answer. One flush at a time: a call during a flush runs once more after it and
   * resolves with that run's result.
   */
  flush(userId: number): Promise<FlushResult<R>> {
    if (this.running) return this.running.then(() => this.flush(userId));
    const run = this.run(userId).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  /**
   * Keeps a punch and sends it, as add() then flush() do; but when none of the worker's punches
   * waits (as far as this tab knows: the last flush left none) it is sent while it is being
   * stored, and the answer is told as soon as it comes (the punch is removed after), so that a tap
   * waits for the server only. Sending first is safe: a punch whose answer is lost after it is
   * stored is sent again and recorded once. A punch without an answer is told waiting once stored.
   */
  submit(punch: Omit<Punch, 'seq'>): Promise<FlushResult<R>> {
    if (this.running || this.drained !== punch.userId) return this.add(punch).then(() => this.flush(punch.userId));
    const stored = { ...punch, seq: ++this.seq };
    const kept = this.store.put(stored);
    // Its failure is handled below, once the answer is known.
    kept.catch(() => undefined);
    const told = this.deliver(stored).then(async (outcome): Promise<FlushResult<R>> => {
      if (outcome.kind !== 'waiting') return { outcomes: [outcome], waiting: [], blockedBy: null };
      this.drained = null;
      await kept;
      return { outcomes: [], waiting: [stored], blockedBy: outcome.error };
    });
    // The queue stays busy until the punch is removed, or stored to wait.
    this.running = told
      .then(async (result) => {
        await kept;
        if (result.outcomes.length) await this.store.delete(stored.clientEventId);
        await this.notify();
      })
      // A storage failure here is not the tap's: the server has the punch, and one left stored is
      // sent again later and answered as the first time. (A punch without an answer is told
      // waiting only once stored, so a failure to keep it reaches the tap.)
      .catch(() => undefined)
      .finally(() => {
        this.running = null;
      });
    return told;
  }

  private async run(userId: number): Promise<FlushResult<R>> {
    const added = this.added;
    const outcomes: Outcome<R>[] = [];
    const pending = await this.waiting(userId);
    for (let i = 0; i < pending.length; i++) {
      const punch = pending[i]!;
      const outcome = await this.deliver(punch);
      if (outcome.kind !== 'waiting') await this.store.delete(punch.clientEventId);
      await this.notify();
      if (outcome.kind === 'waiting') return { outcomes, waiting: pending.slice(i), blockedBy: outcome.error };
      outcomes.push(outcome);
    }
    if (this.added === added) this.drained = userId;
    return { outcomes, waiting: [], blockedBy: null };
  }

  /** Sends one punch: the server's verdict, or that it waits (no answer). */
  private async deliver(punch: Punch): Promise<Outcome<R> | { kind: 'waiting'; error: unknown }> {
    try {
      return { punch, kind: 'sent', reply: await this.send(punch) };
    } catch (error) {
      const answer = this.asSendError(error);
      return !answer || isRetryable(answer) ? { kind: 'waiting', error } : { punch, kind: 'refused', error };
    }
  }

  private async notify(): Promise<void> {
    if (this.listeners.size === 0) return;
    const waiting = await this.waiting();
    for (const l of this.listeners) l(waiting);
  }
}

/** A store in memory (tests; and the app when IndexedDB is unavailable, e.g. private mode). */
export function memoryStore(initial: Punch[] = []): PunchStore & { map: Map<string, Punch> } {
  const map = new Map(initial.map((p) => [p.clientEventId, p]));
  return {
    map,
    all: async () => [...map.values()].map((p) => ({ ...p })),
    put: async (p) => void map.set(p.clientEventId, { ...p }),
    delete: async (id) => void map.delete(id),
  };
}

/**
 * The worker's state as they see it: the last waiting punch when there is one (a queued clock-in
 * means they are clocked in), otherwise the server's latest event (none: clocked out).
 */
export function effectiveState(latest: { eventType: EventType; at: string } | null, waiting: Punch[]): { state: EventType; since: string | null; queued: boolean } {
  const last = [...waiting].sort(byOrder).at(-1);
  if (last) return { state: last.eventType, since: last.capturedAt, queued: true };
  return latest ? { state: latest.eventType, since: latest.at, queued: false } : { state: 'clock_out', since: null, queued: false };
}

/** The action the big button offers. */
export const nextAction = (state: EventType): EventType => (state === 'clock_in' ? 'clock_out' : 'clock_in');

/**
 * The QR code's value from what the camera read: the code's UUID, also when it is printed inside
 * a URL or with spaces around it; anything else as it is (the server then says it is unknown).
 */
export function qrValueOf(text: string): string {
  const m = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(text);
  return m ? m[0].toLowerCase() : text.trim();
}
