// Start-up writes that need the environment or the route table: the bootstrap super
// administrator on an empty database, and the permission catalogue (one permission per slug
// that a route declares), linked to the menu of its module.
import { randomBytes } from 'node:crypto';
import { count, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { hashPassword } from '../platform/auth/password.ts';
import type { Config } from '../platform/config.ts';
import type { Database, Executor } from '../platform/db/database.ts';
import type { GeneratedCredential } from '../platform/platform.ts';
import { adminRoles, admins, permissions, roles, SUPER_ADMIN_ROLE } from './db/schema.ts';

export interface DeclaredPermission {
  slug: string;
  method: string;
  path: string;
  name: string;
}

const hasAdmins = async (db: Executor) => ((await db.orm.select({ n: count() }).from(admins))[0]?.n ?? 0) > 0;

export async function ensureBootstrapAdmin(db: Database, config: Config, logger: Logger, credentials: GeneratedCredential[]): Promise<void> {
  if (await hasAdmins(db)) return;
  const generated = !config.ADMIN_PASSWORD;
  const password = config.ADMIN_PASSWORD ?? randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  const created = await db.transaction(async (tx) => {
    // Raw: an advisory lock, so that instances starting together create one administrator.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['bootstrap:admin']);
    if (await hasAdmins(tx)) return false;
    const [admin] = await tx.orm.insert(admins)
      // A generated password was chosen for them: they choose their own at the first sign-in.
      .values({ username: config.ADMIN_USERNAME, passwordHash: hash, nickname: 'Super Administrator', departmentId: 1, mustChangePassword: generated })
      .returning({ id: admins.id });
    const [role] = await tx.orm.select({ id: roles.id }).from(roles).where(eq(roles.slug, SUPER_ADMIN_ROLE));
    if (role) await tx.orm.insert(adminRoles).values({ adminId: admin!.id, roleId: role.id });
    return true;
  });
  if (!created) return;
  if (generated) {
    credentials.push({ account: 'administrator', username: config.ADMIN_USERNAME, password, reset: `npm run reset-password -- admin ${config.ADMIN_USERNAME}` });
  } else {
    logger.info({ username: config.ADMIN_USERNAME }, 'bootstrap administrator created with ADMIN_PASSWORD');
  }
}

/** Upserts one permission per declared slug; the menu whose slug is the module links it. */
export async function syncPermissionCatalogue(db: Database, declared: DeclaredPermission[]): Promise<void> {
  const bySlug = new Map<string, DeclaredPermission>();
  for (const p of declared) if (!bySlug.has(p.slug)) bySlug.set(p.slug, p);
  if (bySlug.size === 0) return;
  await db.orm
    .insert(permissions)
    .values(
      [...bySlug.values()].map((p) => ({
        slug: p.slug,
        name: p.name.slice(0, 128),
        method: p.method,
        path: p.path,
        isSystem: true,
        menuId: sql`(select id from admin.menus where slug = ${p.slug.split('.')[0]!.replace(/_/g, '-')})`,
      })),
    )
    .onConflictDoUpdate({
      target: permissions.slug,
      set: {
        method: sql`excluded.method`,
        path: sql`excluded.path`,
        isSystem: true,
        menuId: sql`coalesce(${permissions.menuId}, excluded.menu_id)`,
        updatedAt: sql`now()`,
      },
    });
}
