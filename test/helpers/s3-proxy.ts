// The network path to the test's S3 server, in a process of its own (test/helpers/s3.ts starts
// it), so that what it buffers is not counted in the memory of the test that measures a driver:
// `node s3-proxy.ts <moto's port>` listens on a free port of 127.0.0.1, says which on its first
// line, and forwards every request to moto on a connection of its own. moto closes the
// connection after every response; real stores keep it open for the next request, and so does
// this proxy towards its clients (moto's `Connection: close` is not passed on). Messages from
// the parent: `stop` closes the port (connections reset, new ones refused), `start` opens it
// again on the same port; each is answered with the same word once done.
import { createServer, request } from 'node:http';
import type { Socket } from 'node:net';

const upstreamPort = Number(process.argv[2]);
const sockets = new Set<Socket>();
const proxy = createServer((incoming, outgoing) => {
  const upstream = request({ host: '127.0.0.1', port: upstreamPort, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
    const { connection: _close, 'keep-alive': _keep, ...headers } = answer.headers;
    outgoing.writeHead(answer.statusCode ?? 502, headers);
    answer.pipe(outgoing);
  });
  const fail = () => {
    upstream.destroy();
    outgoing.destroy();
  };
  upstream.on('error', fail);
  incoming.on('error', fail);
  incoming.pipe(upstream);
});
proxy.on('connection', (socket: Socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});

let port = 0;
const listen = () => new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
await listen();
port = (proxy.address() as { port: number }).port;
process.stdout.write(`${port}\n`);

process.on('message', (command: 'stop' | 'start') => {
  void (async () => {
    if (command === 'stop' && proxy.listening) {
      const closed = new Promise((resolve) => proxy.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    }
    if (command === 'start' && !proxy.listening) await listen();
    process.send!(command);
  })();
});
// The parent gone (a test process that ended), this one goes too.
process.on('disconnect', () => process.exit(0));
