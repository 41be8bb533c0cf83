// Live push of notifications over WebSocket on this instance: who may open a socket (bearer
// token, or a single-use ticket from POST /ws/ticket), delivery of the notifications published
// by any instance to the local sockets of their recipients, and closing the sockets of
// sessions that end (logout, kick-out, password change, disabled or deleted account), and
// telling the sockets of administrators whose grants changed to read their menus again.
// Each socket has a language (?lang=, else the ticket request's, else the upgrade's
// Accept-Language): system notifications are rendered in it.
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { AppError } from '../../../platform/http/errors.ts';
import { CLOSE, RealtimeHub, type Peer } from '../../../platform/realtime/hub.ts';
import type { KvStore } from '../../../platform/cache/kv.ts';
import type { PubSub } from '../../../platform/cache/pubsub.ts';
import type { Config } from '../../../platform/config.ts';
import { E } from '../../errors.ts';
import { STEP_REFUSALS, type Guard, type Principal } from '../../kernel/guard.ts';
import { AUTH_CHANNEL, type AuthInvalidation, type Sessions } from '../../kernel/sessions.ts';
import { NOTIFY_CHANNEL, viewOf, type NotificationMessage, type NotificationsService, type PushMessage } from './notifications.service.ts';
import { LOCALES, msg, type Locale } from '../../../platform/i18n.ts';

interface PushDeps {
  config: Config;
  kv: KvStore;
  pubsub: PubSub;
  logger: Logger;
  sessions: Sessions;
  guard: Guard;
  notifications: NotificationsService;
}

export const TICKET_TTL_MS = 30_000;
const TICKET_BYTES = 32;
export const TICKET_PATTERN = '^[A-Za-z0-9_-]{43}$';

const ticketKey = (ticket: string) => `admin:ws-ticket:${createHash('sha256').update(ticket).digest('base64url')}`;

/** A peer as authenticated before the upgrade, with the invalidation epoch it was checked in. */
export interface SocketGrant extends Peer {
  epoch: number;
  lang: Locale;
}

const localeOfPeer = (peer: Peer): Locale => (LOCALES.includes(peer.lang as Locale) ? (peer.lang as Locale) : 'en-US');

/**
 * The contract's push frame, `{ type: 'notification', data: { id, title, content, created_at } }`,
 * with the list's additive fields after them (`kind`, `link`, `link_expires_at`, `sender_id`,
 * `sender_name`), in `locale`.
 */
export function notificationFrame(n: NotificationMessage, locale: Locale): Buffer {
  const v = viewOf(n, locale);
  return Buffer.from(JSON.stringify({
    type: 'notification',
    data: {
      id: v.id, title: v.title, content: v.content, created_at: v.created_at,
      kind: v.kind, link: v.link, link_expires_at: v.link_expires_at, sender_id: v.sender_id, sender_name: v.sender_name,
    },
  }));
}

/** Sent to the sockets of an administrator whose grants changed: the client reads GET /info again. */
export const PERMISSIONS_CHANGED_FRAME = Buffer.from(JSON.stringify({ type: 'permissions_changed' }));

export class NotificationPush {
  readonly hub: RealtimeHub;
  private readonly deps: PushDeps;
  private readonly unsubscribers: (() => Promise<void>)[] = [];
  private running = false;
  /** Bumped by every session invalidation: a socket authenticated across one is checked again. */
  private epoch = 0;
  /** Notifications being read back from the database (pushed by reference), by id. */
  private readonly loading = new Map<number, Promise<NotificationMessage | undefined>>();
  /** Deliveries waiting behind a read-back, so that each socket gets notifications in order. */
  private tail: Promise<void> | null = null;

  constructor(deps: PushDeps) {
    this.deps = deps;
    const { config, logger } = deps;
    this.hub = new RealtimeHub({
      heartbeatMs: config.WS_HEARTBEAT_MS,
      maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
      maxPerSession: config.WS_MAX_SOCKETS_PER_SESSION,
      logger,
    });
    // Invalidations made on this instance arrive here first; the others through AUTH_CHANNEL.
    deps.sessions.onInvalidate((m) => this.onInvalidation(m));
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const { pubsub } = this.deps;
    this.unsubscribers.push(await pubsub.subscribe(NOTIFY_CHANNEL, (m) => this.onPush(m as PushMessage)));
    this.unsubscribers.push(await pubsub.subscribe(AUTH_CHANNEL, (m) => this.onInvalidation(m as AuthInvalidation)));
    this.hub.start();
  }

  /** Stops receiving and closes every socket (1001). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const unsubscribe of this.unsubscribers.splice(0)) await unsubscribe().catch(() => {});
    await this.hub.stop();
  }

  // ---- who may connect ----

  /** A single-use ticket for the caller's session, valid for TICKET_TTL_MS; its socket speaks `lang`. */
  async issueTicket(principal: Principal, lang: Locale): Promise<{ ticket: string; expires_at: string }> {
    const ticket = randomBytes(TICKET_BYTES).toString('base64url');
    await this.deps.kv.set(ticketKey(ticket), JSON.stringify({ sid: principal.sessionId, uid: principal.adminId, lang }), TICKET_TTL_MS);
    return { ticket, expires_at: new Date(Date.now() + TICKET_TTL_MS).toISOString() };
  }

  /**
   * Authenticates an upgrade request by its ticket, else by its bearer token (401 otherwise);
   * 429 when its session already holds WS_MAX_SOCKETS_PER_SESSION sockets here. The socket's
   * language: `lang.asked` (?lang= on the socket) when given, else the ticket's, else
   * `lang.upgrade` (the upgrade request's Accept-Language).
   */
  async authenticate(
    ticket: string | undefined,
    authorization: string | undefined,
    lang: { asked?: Locale | undefined; upgrade: Locale } = { upgrade: 'en-US' },
  ): Promise<SocketGrant> {
    const grant = await this.identify(ticket, authorization, lang);
    if (this.hub.sessionFull(grant.sessionId)) {
      const max = this.deps.config.WS_MAX_SOCKETS_PER_SESSION;
      throw new AppError(E.TOO_MANY_REQUESTS, { detail: msg('admin.notifications.tooManySockets', { max }) });
    }
    return grant;
  }

  private async identify(ticket: string | undefined, authorization: string | undefined, lang: { asked?: Locale | undefined; upgrade: Locale }): Promise<SocketGrant> {
    const epoch = this.epoch;
    if (ticket !== undefined) {
      const stored = await this.deps.kv.take(ticketKey(ticket));
      if (!stored) throw new AppError(E.TOKEN_INVALID, { detail: msg('admin.notifications.ticketUnusable') });
      const { sid, uid, lang: ticketLang } = JSON.parse(stored) as { sid: number; uid: number; lang?: string };
      const session = await this.liveSession(sid);
      if (!session || session.adminId !== uid) throw new AppError(E.TOKEN_REVOKED, { detail: msg('admin.notifications.ticketSessionEnded') });
      const ticketLocale = LOCALES.find((l) => l === ticketLang);
      return { userId: uid, sessionId: sid, expiresAt: session.expiresAt, epoch, lang: lang.asked ?? ticketLocale ?? lang.upgrade };
    }
    const principal = await this.deps.guard.authenticate(authorization);
    // A restricted session (a new password or an authenticator first) opens no socket (as it gets no ticket).
    if (principal.restriction) throw new AppError(STEP_REFUSALS[principal.restriction]);
    // The guard verified the token; its expiry is the session's (refresh moves both).
    const exp = (JSON.parse(Buffer.from(authorization!.split('.')[1]!, 'base64url').toString('utf8')) as { exp?: number }).exp;
    return { userId: principal.adminId, sessionId: principal.sessionId, expiresAt: (exp ?? 0) * 1000, epoch, lang: lang.asked ?? lang.upgrade };
  }

  /** Registers an upgraded socket; a session invalidated since it was authenticated is checked again. */
  attach(ws: WebSocket, grant: SocketGrant): void {
    this.hub.add(ws, grant);
    if (grant.epoch !== this.epoch) void this.recheck([grant.sessionId]);
  }

  private async liveSession(sid: number): Promise<{ adminId: number; expiresAt: number } | undefined> {
    const row = await this.deps.sessions.lookup(sid);
    if (!row || row.endedAt || row.status !== 1 || row.expiresAt.getTime() <= Date.now()) return undefined;
    return { adminId: row.adminId, expiresAt: row.expiresAt.getTime() };
  }

  // ---- sessions that end ----

  private onInvalidation(m: AuthInvalidation): void {
    this.epoch += 1;
    if (this.hub.size === 0) return;
    // Sockets of a session that ended are closed by the check below; the others refetch /info.
    if (m.grants && m.admins?.length) this.hub.sendToUsers(m.admins, PERMISSIONS_CHANGED_FRAME);
    const sessions = this.hub.localSessions(m.sessions ?? [], m.admins ?? []);
    if (sessions.length > 0) void this.recheck(sessions);
  }

  /**
   * An invalidation names sessions that ended, but also one whose token was refreshed and
   * administrators whose roles changed: the database says which sockets must close.
   */
  private async recheck(sessionIds: number[]): Promise<void> {
    for (const sid of sessionIds) {
      try {
        const live = await this.liveSession(sid);
        if (live) this.hub.extendSession(sid, live.expiresAt);
        else this.hub.closeSessions([sid], CLOSE.POLICY_VIOLATION, 'session ended');
      } catch (err) {
        this.deps.logger.warn({ err, session: sid }, 'could not check a session with open sockets; closing them');
        this.hub.closeSessions([sid], CLOSE.INTERNAL_ERROR, 'session check failed');
      }
    }
  }

  // ---- delivery ----

  private onPush(m: PushMessage): void {
    if (!m || typeof m.id !== 'number' || (m.to !== 'all' && !Array.isArray(m.to))) return;
    if (this.hub.size === 0) return;
    if (m.to !== 'all' && !m.to.some((id) => this.hub.hasUser(id))) return;
    if (m.n && !this.tail) {
      this.deliver(m, m.n);
      return;
    }
    const run = async () => {
      const n = m.n ?? (await this.load(m.id));
      if (n) this.deliver(m, n);
    };
    const next: Promise<void> = (this.tail ?? Promise.resolve()).then(run).catch((err: unknown) => {
      this.deps.logger.error({ err, notification: m.id }, 'could not push a notification');
    });
    this.tail = next;
    void next.then(() => {
      if (this.tail === next) this.tail = null;
    });
  }

  private deliver(m: PushMessage, n: NotificationMessage): void {
    // One frame per language, made for the first socket that speaks it.
    const frames = new Map<Locale, Buffer>();
    const frame = (peer: Peer) => {
      const locale = localeOfPeer(peer);
      let f = frames.get(locale);
      if (!f) frames.set(locale, (f = notificationFrame(n, locale)));
      return f;
    };
    if (m.to === 'all') this.hub.broadcast(frame);
    else this.hub.sendToUsers(m.to, frame);
  }

  /** Reads a notification once, however many messages (recipient chunks) refer to it. */
  private load(id: number): Promise<NotificationMessage | undefined> {
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.deps.notifications.message(id);
      this.loading.set(id, pending);
      // Kept a little while: the other recipient chunks of a large audience follow at once.
      pending.then(
        () => setTimeout(() => this.loading.delete(id), 10_000).unref(),
        () => this.loading.delete(id),
      );
    }
    return pending;
  }
}
