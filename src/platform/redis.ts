// Redis connections (commands, and a separate one for subscriptions). Start-up fails fast
// when REDIS_URL is set but the server cannot be reached.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { endpointOf, StartupError } from './startup.ts';

export async function connectRedis(url: string, logger: Logger): Promise<{ client: Redis; subscriber: Redis }> {
  const make = (name: string) => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000, connectionName: name });
    r.on('error', (err: Error) => logger.warn({ err: err.message, connection: name }, 'redis error'));
    return r;
  };
  const client = make('fieldops');
  const subscriber = make('fieldops-sub');
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
    await client.ping();
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw new StartupError(`cannot use Redis at ${endpointOf(url)} (REDIS_URL): ${(err as Error).message}`);
  }
  return { client, subscriber };
}
