// The open WebSocket connections of one instance, by user and by session, and how frames
// reach them. Messages from other instances arrive through pub/sub and are handed to
// `sendToUsers` / `broadcast` on every instance; the hub only knows its local sockets.
//
// - Heartbeat: every `heartbeatMs` each socket is pinged; one that has not answered the
//   previous ping is terminated. A socket whose session expiry passed is closed (1008).
// - Slow consumers: a socket whose unsent data exceeds `maxBufferedBytes` gets no more frames
//   and is closed (1013); one still closing at the next heartbeat is terminated. Memory per
//   socket is thus bounded by the threshold plus one frame.
// - Sockets per session: a session already holding `maxPerSession` sockets gets its new one
//   closed at once (1013), however many upgrades it raced through the caller's own check.
// - `stop` closes every socket (1001) and terminates those that do not finish within a grace.
// Listeners are shared by all sockets (no closure per socket), to keep idle sockets small.
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';

export const CLOSE = {
  GOING_AWAY: 1001,
  POLICY_VIOLATION: 1008,
  INTERNAL_ERROR: 1011,
  TRY_AGAIN_LATER: 1013,
} as const;

const OPEN = 1;
const TEXT = { binary: false };

export interface Peer {
  userId: number;
  sessionId: number;
  /** Epoch milliseconds after which the socket is closed (1008), unless extended. */
  expiresAt: number;
  /** The language the socket's frames are written in (a locale tag; the caller decides what it means). */
  lang?: string;
}

/** One frame for every socket, or the frame of each socket (by its peer, e.g. its language). */
export type Frame = Buffer | ((peer: Peer) => Buffer);

export interface HubOptions {
  heartbeatMs: number;
  maxBufferedBytes: number;
  maxPerSession: number;
  logger: Logger;
}

interface Client extends Peer {
  readonly ws: WebSocket;
  /** Answered the last ping (or was just opened). */
  alive: boolean;
  /** Seen not open at a heartbeat: terminated at the next one. */
  closingSeen: boolean;
}

export class RealtimeHub {
  private readonly clients = new Map<WebSocket, Client>();
  private readonly byUser = new Map<number, Set<Client>>();
  private readonly bySession = new Map<number, Set<Client>>();
  private readonly opts: HubOptions;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;

  /** Listeners shared by every socket: ws calls them with `this` set to the socket. */
  private readonly onPong: (this: WebSocket) => void;
  private readonly onClose: (this: WebSocket) => void;
  private readonly onError: (this: WebSocket, err: Error) => void;

  constructor(opts: HubOptions) {
    this.opts = opts;
    const clients = this.clients;
    const remove = (c: Client) => this.remove(c);
    this.onPong = function onPong(this: WebSocket) {
      const c = clients.get(this);
      if (c) c.alive = true;
    };
    this.onClose = function onClose(this: WebSocket) {
      const c = clients.get(this);
      if (c) remove(c);
    };
    // Client misbehaviour (a frame over maxPayload, bad framing) is not a server error: ws has
    // already begun the closing handshake with the right code (1009, 1002, ...); a socket
    // error (reset) is terminated.
    const logger = opts.logger;
    this.onError = function onError(this: WebSocket, err: Error) {
      const c = clients.get(this);
      logger.info({ err: { message: err.message, code: (err as { code?: string }).code }, user: c?.userId }, 'WebSocket closed on an error');
      if (this.readyState === OPEN) this.terminate();
    };
  }

  get size(): number {
    return this.clients.size;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.heartbeat(), this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** Sockets of a session on this instance, open or closing. */
  sessionSockets(sessionId: number): number {
    return this.bySession.get(sessionId)?.size ?? 0;
  }

  /** Whether the session already holds `maxPerSession` sockets here. */
  sessionFull(sessionId: number): boolean {
    return this.sessionSockets(sessionId) >= this.opts.maxPerSession;
  }

  /** Registers an open socket; it leaves the hub when it closes. */
  add(ws: WebSocket, peer: Peer): void {
    ws.on('error', this.onError);
    if (this.stopping) {
      ws.close(CLOSE.GOING_AWAY, 'server shutting down');
      return;
    }
    if (this.sessionFull(peer.sessionId)) {
      ws.close(CLOSE.TRY_AGAIN_LATER, 'too many sockets for this session');
      return;
    }
    const client: Client = { ws, userId: peer.userId, sessionId: peer.sessionId, expiresAt: peer.expiresAt, lang: peer.lang, alive: true, closingSeen: false };
    this.clients.set(ws, client);
    index(this.byUser, client.userId, client);
    index(this.bySession, client.sessionId, client);
    ws.on('pong', this.onPong);
    ws.on('close', this.onClose);
  }

  private remove(client: Client): void {
    if (this.clients.get(client.ws) !== client) return;
    this.clients.delete(client.ws);
    unindex(this.byUser, client.userId, client);
    unindex(this.bySession, client.sessionId, client);
  }

  /** Sends one frame (text) to every open socket of these users; the number of sockets written to. */
  sendToUsers(userIds: Iterable<number>, frame: Frame): number {
    let sent = 0;
    for (const id of userIds) {
      const set = this.byUser.get(id);
      if (set) for (const c of set) if (this.write(c, frame)) sent += 1;
    }
    return sent;
  }

  /** Sends one frame (text) to every open socket. */
  broadcast(frame: Frame): number {
    let sent = 0;
    for (const c of this.clients.values()) if (this.write(c, frame)) sent += 1;
    return sent;
  }

  private write(c: Client, frame: Frame): boolean {
    const { ws } = c;
    if (ws.readyState !== OPEN) return false;
    if (ws.bufferedAmount > this.opts.maxBufferedBytes) {
      this.opts.logger.info({ user: c.userId, session: c.sessionId, buffered: ws.bufferedAmount }, 'closing a slow WebSocket consumer');
      ws.close(CLOSE.TRY_AGAIN_LATER, 'slow consumer');
      return false;
    }
    ws.send(typeof frame === 'function' ? frame(c) : frame, TEXT);
    return true;
  }

  hasUser(userId: number): boolean {
    return this.byUser.has(userId);
  }

  /** Session ids with an open socket here, among the given sessions or sessions of the given users. */
  localSessions(sessionIds: Iterable<number>, userIds: Iterable<number>): number[] {
    const out = new Set<number>();
    for (const id of sessionIds) if (this.bySession.has(id)) out.add(id);
    for (const id of userIds) for (const c of this.byUser.get(id) ?? []) out.add(c.sessionId);
    return [...out];
  }

  /** Closes every socket of these sessions. */
  closeSessions(sessionIds: Iterable<number>, code: number, reason: string): number {
    let closed = 0;
    for (const id of sessionIds) {
      for (const c of [...(this.bySession.get(id) ?? [])]) {
        if (c.ws.readyState === OPEN) closed += 1;
        c.ws.close(code, reason);
      }
    }
    return closed;
  }

  /** The session lives on (token refreshed): its sockets stay open until `expiresAt`. */
  extendSession(sessionId: number, expiresAt: number): void {
    for (const c of this.bySession.get(sessionId) ?? []) c.expiresAt = expiresAt;
  }

  private heartbeat(): void {
    const now = Date.now();
    for (const c of this.clients.values()) {
      const { ws } = c;
      if (ws.readyState !== OPEN) {
        if (c.closingSeen) ws.terminate();
        c.closingSeen = true;
      } else if (!c.alive) {
        ws.terminate();
      } else if (c.expiresAt <= now) {
        ws.close(CLOSE.POLICY_VIOLATION, 'session expired');
      } else {
        c.alive = false;
        ws.ping();
      }
    }
  }

  /** Closes every socket (1001); those not closed within `graceMs` are terminated. */
  async stop(graceMs = 1000): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.clients.size === 0) return;
    const closed = [...this.clients.keys()].map(
      (ws) => new Promise<void>((resolve) => {
        if (ws.readyState === 3) resolve();
        else ws.once('close', () => resolve());
      }),
    );
    for (const ws of this.clients.keys()) ws.close(CLOSE.GOING_AWAY, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(closed), grace]);
    clearTimeout(timer);
    for (const ws of this.clients.keys()) ws.terminate();
  }
}

function index(map: Map<number, Set<Client>>, key: number, client: Client) {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(client);
}

function unindex(map: Map<number, Set<Client>>, key: number, client: Client) {
  const set = map.get(key);
  if (!set) return;
  set.delete(client);
  if (set.size === 0) map.delete(key);
}
