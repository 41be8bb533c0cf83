// `npm run migrate`: applies the migrations of the configured services and exits.
import pino from 'pino';
import { loadConfig } from '../platform/config.ts';
import { loggerOptions } from '../platform/logger.ts';
import { createPlatform } from '../platform/platform.ts';
import { exitOnStartupError } from '../platform/startup.ts';
import { migrateAll } from '../server.ts';

try {
  const config = loadConfig();
  const logger = pino(loggerOptions(config.LOG_LEVEL));
  const platform = await createPlatform(config, { logger });
  try {
    await migrateAll(platform);
    logger.info('migrations up to date');
  } finally {
    await platform.close();
  }
} catch (err) {
  exitOnStartupError(err);
}
