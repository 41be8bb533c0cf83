// Applies the committed SQL migrations of one service (migrations/<service>/NNNN_name.sql),
// each in its own transaction, under an advisory lock so that instances starting together
// apply each file exactly once. An applied file whose content changed stops start-up.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Database } from './database.ts';

export const MIGRATIONS_ROOT = path.resolve(import.meta.dirname, '../../../migrations');

export async function migrate(db: Database, schema: 'admin' | 'timeclock', logger: Logger): Promise<number> {
  const dir = path.join(MIGRATIONS_ROOT, schema);
  const files = readdirSync(dir).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
  let applied = 0;
  for (const file of files) {
    const sql = readFileSync(path.join(dir, file), 'utf8');
    const checksum = createHash('sha256').update(sql).digest('hex');
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`migrate:${schema}`]);
      await tx.script(
        `CREATE SCHEMA IF NOT EXISTS ${schema};
         CREATE TABLE IF NOT EXISTS ${schema}._migrations (
           name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const rows = await tx.query<{ checksum: string }>(`SELECT checksum FROM ${schema}._migrations WHERE name = $1`, [file]);
      if (rows[0]) {
        if (rows[0].checksum !== checksum) {
          throw new Error(`migration ${schema}/${file} was changed after it was applied; add a new migration instead`);
        }
        return;
      }
      await tx.script(sql);
      await tx.query(`INSERT INTO ${schema}._migrations (name, checksum) VALUES ($1, $2)`, [file, checksum]);
      applied += 1;
      logger.info({ migration: `${schema}/${file}` }, 'migration applied');
    });
  }
  return applied;
}
