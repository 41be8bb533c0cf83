// `npm run seed -- --orders 1000000`: adds demo orders (with details and payment records) and
// a few payment methods to the configured database (DATABASE_URL, or the embedded one under
// DATA_DIR), after applying pending migrations.
import { parseArgs } from 'node:util';
import { seedOrders } from '../admin/features/orders/orders.seed.ts';
import { runCommand } from './command.ts';

const USAGE = 'usage: npm run seed -- [--orders N] [--users N] [--batch N]   (defaults: 10000 orders over 100000 users, batches of 50000)';

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) {
    process.stderr.write(`--${name} must be a whole number from 1 to 999999999\n${USAGE}\n`);
    process.exit(2);
  }
  return Number(value);
}

let args: { orders?: string | undefined; users?: string | undefined; batch?: string | undefined; help?: boolean | undefined };
try {
  args = parseArgs({
    options: { orders: { type: 'string' }, users: { type: 'string' }, batch: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }).values;
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const orders = count(args.orders, 'orders', 10_000);
const users = count(args.users, 'users', 100_000);
const batchSize = count(args.batch, 'batch', 50_000);

await runCommand(async (platform, logger) => {
  const result = await seedOrders(platform.db, {
    orders,
    users,
    batchSize,
    onProgress: (done, total) => logger.info({ done, total }, 'seeding orders'),
  });
  logger.info({ orders: result.orders, seconds: Math.round(result.ms / 100) / 10, database: platform.db.kind }, 'seed finished');
});
