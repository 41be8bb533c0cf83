// Which connections a closing server may end. Node's `server.close()` (and Fastify's close,
// which calls it) ends every connection it deems idle, and a connection accepted whose request
// has not been read yet counts as idle: under load, connections opened just before a SIGTERM
// were destroyed with their request unread, and their clients saw ECONNRESET. Here a connection
// that has not begun its first request keeps the usual HTTP_HEADERS_TIMEOUT_MS to send it (it
// is then answered, 503 once the server is closing, and closed after the answer); only
// connections idle between two requests (keep-alive) are ended at once, as before.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  /** When it opened, or its last response ended. */
  idleSince: number;
  /** Requests begun on it, and those not answered yet. */
  requests: number;
  active: number;
  /** socket.bytesRead when its last response ended: more since means a next request is arriving. */
  readAtIdle: number;
}

/**
 * Tracks the connections of `server` and replaces its `closeIdleConnections` (called by
 * `server.close()` and by the closing sweeper) with one that spares connections whose first
 * request, or next one, is still arriving, for up to `headersTimeoutMs` after they opened or
 * last answered.
 */
export function spareArrivingRequests(server: Server, headersTimeoutMs: number, tls: boolean): void {
  const connections = new Map<Socket, Tracked>();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections.set(socket, { idleSince: Date.now(), requests: 0, active: 0, readAtIdle: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (req, res) => {
    const c = connections.get(req.socket);
    if (!c) return;
    c.requests += 1;
    c.active += 1;
    res.once('close', () => {
      c.active -= 1;
      c.idleSince = Date.now();
      c.readAtIdle = req.socket.bytesRead;
    });
  });
  server.closeIdleConnections = () => {
    const now = Date.now();
    const idle: Array<[Socket, number]> = [];
    for (const [socket, c] of connections) {
      if (c.active > 0) continue;
      const arriving = c.requests === 0 || socket.bytesRead > c.readAtIdle;
      if (arriving && now - c.idleSince < headersTimeoutMs) continue;
      idle.push([socket, c.requests]);
    }
    if (idle.length === 0) return;
    // After a stall longer than the headers timeout (a server starved of CPU), a request that
    // arrived meanwhile may be unread here: the sweeper's timer runs before the event loop's poll
    // reads sockets. The connections are ended after a poll, unless a request began on them: two
    // setImmediate hops put one poll between, whichever phase this is called from.
    setImmediate(() => setImmediate(() => {
      for (const [socket, requests] of idle) {
        const c = connections.get(socket);
        if (c && c.active === 0 && c.requests === requests) socket.destroy();
      }
    }));
  };
}

/**
 * Resolves once the listener's queue is empty: the connections clients completed before the
 * close are accepted (closing the listener would make the kernel reset them, not refuse them).
 * The event loop accepts only some of a long queue per turn, so this waits turn after turn
 * (a millisecond each) until one accepts nothing new, for at most `maxMs`.
 */
export async function acceptPending(server: Server, maxMs = 2000): Promise<void> {
  let accepted = 0;
  const count = () => void (accepted += 1);
  server.on('connection', count); // the TCP accept, before any TLS handshake
  try {
    const until = Date.now() + maxMs;
    for (let seen = -1; seen !== accepted && Date.now() < until;) {
      seen = accepted;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    server.off('connection', count);
  }
}
