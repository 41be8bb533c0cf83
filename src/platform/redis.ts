// Redis connections (commands, and a separate one for subscriptions) and the availability of
// Redis. Start-up fails fast when REDIS_URL is set but the server cannot be reached; afterwards
// an outage never blocks a caller: commands are not queued while the connection is down (they
// fail at once, and the availability answers callers 503 or lets them fall back), and the
// connections are opened again every half second until Redis is back.
import { Redis, ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { Availability } from './availability.ts';
import { endpointOf, StartupError } from './startup.ts';

export interface RedisConnections {
  client: Redis;
  subscriber: Redis;
  availability: Availability;
}

const RECONNECT_MAX_MS = 500;

export async function connectRedis(url: string, logger: Logger, timeoutMs: number): Promise<RedisConnections> {
  let outage = false;
  const make = (name: string, queueWhileDown: boolean) => {
    const r = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      connectionName: name,
      // Commands fail at once while the connection is down, instead of waiting for it.
      enableOfflineQueue: queueWhileDown,
      maxRetriesPerRequest: queueWhileDown ? 2 : 0,
      // A frozen server answers nothing: no command waits longer than the outage timeout.
      commandTimeout: queueWhileDown ? undefined : timeoutMs,
      retryStrategy: (times) => Math.min(times * 50, RECONNECT_MAX_MS),
    });
    // One line per outage, not one per reconnection attempt.
    r.on('error', (err: Error) => {
      if (!outage) logger.warn({ err: err.message, connection: name }, 'redis error');
    });
    return r;
  };
  const client = make('fieldops', false);
  // Subscriptions are sent again by ioredis when it reconnects; they may wait for the connection.
  const subscriber = make('fieldops-sub', true);
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
    await client.ping();
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw new StartupError(`cannot use Redis at ${endpointOf(url)} (REDIS_URL): ${(err as Error).message}`);
  }
  const availability = new Availability({
    name: 'Redis',
    probe: () => client.ping(),
    timeoutMs,
    // A reply error is Redis answering (a wrong command); anything else is the connection.
    isConnectionError: (err) => !(err instanceof ReplyError),
    logger,
  });
  availability.onChange((available) => {
    outage = !available;
  });
  return { client, subscriber, availability };
}
