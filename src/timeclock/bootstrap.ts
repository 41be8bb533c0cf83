// The first manager, created on an empty database (DESIGN §4).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { hashPassword } from '../platform/auth/password.ts';
import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/database.ts';

export async function ensureBootstrapManager(db: Database, config: Config, logger: Logger): Promise<void> {
  const existing = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.users WHERE role = 'manager'`);
  if ((existing[0]?.n ?? 0) > 0) return;
  const generated = !config.MANAGER_PASSWORD;
  const password = config.MANAGER_PASSWORD ?? randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  const created = await db.transactionRaw(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['bootstrap:manager']);
    const [row] = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.users WHERE role = 'manager'`);
    if ((row?.n ?? 0) > 0) return false;
    await tx.query(
      `INSERT INTO timeclock.users (username, password_hash, full_name, role) VALUES ($1, $2, $3, 'manager')`,
      [config.MANAGER_USERNAME, hash, 'Manager'],
    );
    return true;
  });
  if (!created) return;
  if (generated) {
    logger.warn(
      `Bootstrap time-clock manager created: username=${config.MANAGER_USERNAME} password=${password} (shown once; change it after signing in)`,
    );
  } else {
    logger.info({ username: config.MANAGER_USERNAME }, 'bootstrap time-clock manager created with MANAGER_PASSWORD');
  }
}
