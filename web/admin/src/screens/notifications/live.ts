// Live notifications over the WebSocket: a single-use ticket (browsers cannot send the bearer
// header on a socket), reconnection with exponential back-off and a new ticket each time,
// polling while the socket is down, and a 1008 close (the session ended: kicked out, signed
// out elsewhere, password changed) ends the session here too. A `permissions_changed` message
// (the administrator's roles changed) makes the menu and permissions follow without a reload.
import { api, unwrap } from '../../api/client.ts';
import { getSession, setSession } from '../../api/session.ts';

/** A pushed notification: the contract's four fields, then its kind, download link and sender, as in the list. */
export interface LiveNotification {
  id: number;
  title: string;
  content: string;
  created_at: string;
  kind: 'message' | 'session' | 'export' | 'import' | 'security' | 'system';
  link: string | null;
  link_expires_at: string | null;
  sender_id: number | null;
  sender_name: string | null;
}

export type LiveState = 'connecting' | 'open' | 'down';

export interface LiveOptions {
  onNotification: (n: LiveNotification) => void;
  /** Called when the socket (re)opens — to catch up — and every POLL_MS while it is down. */
  onPoll: () => void;
  onState?: (state: LiveState) => void;
  /** The administrator's roles now grant something else (`permissions_changed`): read /info again. */
  onPermissionsChanged?: () => void;
}

export const POLL_MS = 30_000;
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
/** The server closes a socket whose session ended with this code. */
export const SESSION_ENDED_CLOSE = 1008;
const ENDED_GRACE_MS = 500;

/** Delay before reconnection attempt `attempt` (0-based): 1 s, 2 s, 4 s … up to 30 s, with up to 20 % jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 16));
  return Math.round(base * (1 + 0.2 * random()));
}

export function socketUrl(origin: string, ticket: string): string {
  const url = new URL('/api/admin/ws/notifications', origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('ticket', ticket);
  return url.toString();
}

/** Keeps a live connection until the returned function is called. */
export function connectLive(options: LiveOptions): () => void {
  let stopped = false;
  let attempt = 0;
  let socket: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;

  const startPolling = () => {
    poll ??= setInterval(() => options.onPoll(), POLL_MS);
  };
  const stopPolling = () => {
    clearInterval(poll);
    poll = undefined;
  };
  const reconnect = () => {
    if (stopped) return;
    options.onState?.('down');
    startPolling();
    retry = setTimeout(() => void open(), backoffDelay(attempt));
    attempt += 1;
  };

  async function open() {
    if (stopped) return;
    options.onState?.('connecting');
    let ticket: string;
    try {
      ticket = (await unwrap(api.POST('/api/admin/ws/ticket'))).ticket;
    } catch {
      // A 401 that ends the session is handled by the API client (the bell then unmounts).
      reconnect();
      return;
    }
    if (stopped) return;
    const ws = new WebSocket(socketUrl(location.origin, ticket));
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      stopPolling();
      options.onState?.('open');
      options.onPoll();
    };
    ws.onmessage = (e) => {
      try {
        const msg = JSON.parse(String(e.data)) as { type?: string; data?: LiveNotification };
        if (msg.type === 'notification' && msg.data) options.onNotification(msg.data);
        else if (msg.type === 'permissions_changed') options.onPermissionsChanged?.();
      } catch {
        /* not ours: ignored */
      }
    };
    ws.onclose = (e) => {
      if (socket === ws) socket = null;
      if (stopped) return;
      if (e.code === SESSION_ENDED_CLOSE) {
        // After a short grace: signing out here also closes the socket with 1008, and that
        // ends the session itself (with its own reason) and stops this connection first.
        stopPolling();
        retry = setTimeout(() => {
          if (stopped) return;
          stopped = true;
          if (getSession()) setSession(null, 'revoked');
        }, ENDED_GRACE_MS);
        return;
      }
      reconnect();
    };
  }

  void open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    stopPolling();
    // Closing a socket still connecting makes the browser log an error: close it once open.
    if (socket?.readyState === WebSocket.CONNECTING) {
      const pending = socket;
      pending.onopen = () => pending.close(1000);
      pending.onmessage = null;
    } else socket?.close(1000);
    socket = null;
  };
}
