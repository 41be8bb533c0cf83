// Which connections a server may end, and when. Two of Node's own rules judge a connection by a
// timer, and timers run before the event loop's poll that reads sockets: after a stall (a server
// starved of CPU), a request that had arrived meanwhile was still unread when they looked.
// - `server.close()` (and Fastify's close, which calls it) ends every connection it deems idle,
//   and a connection whose request has not been read yet counts as idle: under load, connections
//   opened just before a SIGTERM were destroyed with their request unread (clients saw ECONNRESET).
// - Node's headers timeout (checked every `connectionsCheckingInterval`) answered 408 and closed
//   a connection whose whole request sat unread in the socket after a stall past the timeout.
// Here both are decided after one poll has read what arrived, and only for connections on which
// no request began meanwhile. A connection whose first request, or next one, is arriving keeps
// HTTP_HEADERS_TIMEOUT_MS from when it opened or last answered to send its headers (then 408, as
// Node did); connections idle between two requests (keep-alive) are ended at once on close.
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
 * Tracks the connections of `server`: replaces its `closeIdleConnections` (called by
 * `server.close()` and by the closing sweeper) with one that spares connections whose request
 * is arriving, and enforces the headers timeout in place of Node's (the server must be created
 * with `headersTimeout: 0` and `requestTimeout: 0`, which turn Node's check off).
 */
export function watchConnections(server: Server, opts: { headersTimeoutMs: number; tls: boolean; checkEveryMs?: number }): void {
  const { headersTimeoutMs } = opts;
  const connections = new Map<Socket, Tracked>();
  server.on(opts.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
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

  /** Connections with no request in progress, split by whether a request is arriving past its time. */
  const select = (which: 'idle' | 'late'): Array<[Socket, number]> => {
    const now = Date.now();
    const found: Array<[Socket, number]> = [];
    for (const [socket, c] of connections) {
      if (c.active > 0) continue;
      const arriving = c.requests === 0 || socket.bytesRead > c.readAtIdle;
      const late = now - c.idleSince >= headersTimeoutMs;
      if (which === 'idle' ? !arriving || late : arriving && late) found.push([socket, c.requests]);
    }
    return found;
  };
  /** Ends them after one poll (two setImmediate hops, whichever phase this runs in), unless a request began on them. */
  const endAfterPoll = (found: Array<[Socket, number]>, end: (socket: Socket) => void) => {
    if (found.length === 0) return;
    setImmediate(() => setImmediate(() => {
      for (const [socket, requests] of found) {
        const c = connections.get(socket);
        if (c && c.active === 0 && c.requests === requests) end(socket);
      }
    }));
  };

  server.closeIdleConnections = () => endAfterPoll(select('idle'), (socket) => socket.destroy());
  // Answered the way Node's own check answers (its 'clientError' event, which Fastify turns into a 408).
  const timedOut = (socket: Socket) => {
    const err = Object.assign(new Error('the request headers did not arrive in time'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    if (server.listenerCount('clientError') > 0) server.emit('clientError', err, socket);
    else socket.destroy();
  };
  const check = setInterval(() => endAfterPoll(select('late'), timedOut), opts.checkEveryMs ?? 1000).unref();
  server.once('close', () => clearInterval(check));
}

/**
 * Resolves once the listener's queue is empty: the connections clients completed before the
 * close are accepted (closing the listener would make the kernel reset them, not refuse them).
 * The event loop accepts only some of a long queue per turn (a few to a few dozen), and a turn
 * of a saturated server takes a long time, so this waits turn after turn (a millisecond each)
 * until two in a row accept nothing new. Only a queue that keeps growing (clients still connecting)
 * is cut at `maxMs`: 2 s cut a CI run's queue of 150 with 46 left, reset by the kernel.
 */
export async function acceptPending(server: Server, maxMs: number): Promise<{ accepted: number; turns: number; ms: number }> {
  let accepted = 0;
  let turns = 0;
  const started = Date.now();
  const count = () => void (accepted += 1);
  server.on('connection', count); // the TCP accept, before any TLS handshake
  try {
    const until = started + maxMs;
    for (let empty = 0; empty < 2 && Date.now() < until; turns += 1) {
      const seen = accepted;
      await new Promise((resolve) => setTimeout(resolve, 1));
      empty = accepted === seen ? empty + 1 : 0;
    }
  } finally {
    server.off('connection', count);
  }
  return { accepted, turns, ms: Date.now() - started };
}
