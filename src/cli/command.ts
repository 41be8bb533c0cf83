// What every command-line tool does around its work: the server's configuration and logger (on
// standard error, so that standard output carries only the command's result), the platform
// opened and migrated, closed whatever happens, and a failed start-up as one line.
import pino, { type Logger } from 'pino';
import { loadConfig } from '../platform/config.ts';
import { loggerOptions } from '../platform/logger.ts';
import { createPlatform, type Platform } from '../platform/platform.ts';
import { exitOnStartupError } from '../platform/startup.ts';
import { migrateAll } from '../server.ts';

export async function runCommand(work: (platform: Platform, logger: Logger) => Promise<void>): Promise<void> {
  try {
    const config = loadConfig();
    const logger = pino(loggerOptions(config.LOG_LEVEL), pino.destination(2));
    const platform = await createPlatform(config, { logger });
    try {
      await migrateAll(platform);
      await work(platform, logger);
    } finally {
      await platform.close();
    }
  } catch (err) {
    exitOnStartupError(err);
  }
}
