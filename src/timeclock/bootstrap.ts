// The first manager, created on an empty database (DESIGN §4), named in the reader's language until renamed (seeds.ts).
import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { hashPassword } from '../platform/auth/password.ts';
import type { Config } from '../platform/config.ts';
import type { Database, Executor } from '../platform/db/database.ts';
import type { GeneratedCredential } from '../platform/platform.ts';
import { users } from './db/schema.ts';
import { FIRST_MANAGER_NAME } from './seeds.ts';

const managers = async (exec: Executor) => (await exec.orm.select({ n: count() }).from(users).where(eq(users.role, 'manager')))[0]?.n ?? 0;

export async function ensureBootstrapManager(db: Database, config: Config, logger: Logger, credentials: GeneratedCredential[]): Promise<void> {
  if ((await managers(db)) > 0) return;
  const generated = !config.MANAGER_PASSWORD;
  const password = config.MANAGER_PASSWORD ?? randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  const created = await db.transaction(async (tx) => {
    // Raw: an advisory lock (instances starting together create one manager).
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['bootstrap:manager']);
    if ((await managers(tx)) > 0) return false;
    // A generated password was chosen for them: they choose their own at the first sign-in.
    await tx.orm.insert(users).values({ username: config.MANAGER_USERNAME, passwordHash: hash, fullName: FIRST_MANAGER_NAME.value, role: 'manager', mustChangePassword: generated });
    return true;
  });
  if (!created) return;
  if (generated) {
    credentials.push({ account: 'time-clock manager', username: config.MANAGER_USERNAME, password, reset: `npm run reset-password -- timeclock ${config.MANAGER_USERNAME}` });
  } else {
    logger.info({ username: config.MANAGER_USERNAME }, 'bootstrap time-clock manager created with MANAGER_PASSWORD');
  }
}
