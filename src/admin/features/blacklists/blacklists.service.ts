// IP blacklist rules: CRUD over admin.blacklists and the live matcher every admin request is
// checked against. Each instance keeps its own matcher (a node:net BlockList of the active
// rules), rebuilt from the database: at start-up, at once after a change made here, when any
// instance publishes a change on BLACKLIST_CHANNEL (after its transaction commits), and every
// RELOAD_EVERY_MS as a safety net for a lost message.
import { randomUUID } from 'node:crypto';
import { eq, ilike, inArray } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { PubSub } from '../../../platform/cache/pubsub.ts';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import { IpMatcher, parseRule, ruleCovers, type IpRule, type MatchedRule } from './blacklists.ip.ts';
import type { BlacklistOrderField } from './blacklists.schema.ts';
import { blacklists } from '../../db/schema.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { msg } from '../../../platform/i18n.ts';

export const BLACKLIST_CHANNEL = 'admin.blacklist';
export const RELOAD_EVERY_MS = 30_000;

export type BlacklistRow = typeof blacklists.$inferSelect;

const rulesList = (orm: Orm) =>
  pagedList(orm, {
    name: 'blacklists',
    rows: (orm) => orm.select().from(blacklists).$dynamic(),
    table: blacklists,
    filters: {
      ip: { param: (ip: string) => contains(ip.trim().toLowerCase()), where: (x) => ilike(blacklists.ip, x) },
      status: (x) => eq(blacklists.status, x),
    },
    sort: { id: blacklists.id, ip: blacklists.ip, status: blacklists.status, created_at: blacklists.createdAt, updated_at: blacklists.updatedAt } satisfies Record<BlacklistOrderField, unknown>,
    id: blacklists.id,
  });
/** A rule (placeholder `id`). */
const ruleById = (orm: Orm) => orm.select().from(blacklists).where(eq(blacklists.id, p('id'))).prepare('blacklist');

function canonical(ip: string): IpRule {
  const rule = parseRule(ip);
  if ('error' in rule) throw new AppError(E.VALIDATION, { detail: rule.error, details: { field: 'ip' } });
  return rule;
}

export class BlacklistsService {
  private readonly orm: Orm;
  private readonly pubsub: PubSub;
  private readonly logger: Logger;
  /** Tells this instance's own messages apart (it has already reloaded). */
  private readonly origin = randomUUID();
  private matcher = new IpMatcher([]);
  private queued: Promise<void> | undefined;
  private tail: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private readonly rules: ReturnType<typeof rulesList>;
  private readonly rowOf: ReturnType<typeof ruleById>;

  constructor(deps: { db: Database; pubsub: PubSub; logger: Logger }) {
    this.orm = deps.db.orm;
    this.pubsub = deps.pubsub;
    this.logger = deps.logger;
    this.rules = rulesList(this.orm);
    this.rowOf = ruleById(this.orm);
  }

  // ---- enforcement -------------------------------------------------------------------------

  /** The active rule blocking `ip`, or null. Synchronous: no I/O on the request path. */
  match(ip: string): MatchedRule | null {
    return this.matcher.match(ip);
  }

  /** Loads the active rules, listens for changes from other instances, starts the safety net. */
  async start(): Promise<void> {
    await this.reload();
    this.unsubscribe = await this.pubsub.subscribe(BLACKLIST_CHANNEL, (m) => {
      if ((m as { origin?: string } | null)?.origin === this.origin) return;
      this.reloadInBackground('change message');
    });
    this.timer = setInterval(() => this.reloadInBackground('periodic'), RELOAD_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /**
   * Rebuilds the matcher from the database. Loads run one at a time; a call while one is
   * waiting to start joins it (that load will see every change committed before the call).
   */
  reload(): Promise<void> {
    if (this.queued) return this.queued;
    const next: Promise<void> = this.tail.then(async () => {
      if (this.queued === next) this.queued = undefined;
      const rows = await this.orm.select({ id: blacklists.id, ip: blacklists.ip }).from(blacklists).where(eq(blacklists.status, 1));
      this.matcher = new IpMatcher(rows);
    });
    this.queued = next;
    this.tail = next.catch(() => {});
    return next;
  }

  private reloadInBackground(reason: string) {
    this.reload().catch((err: unknown) => this.logger.error({ err, reason }, 'reloading the IP blacklist failed; the previous rules stay in force'));
  }

  /** After a committed change: this instance now, the others through pub/sub. */
  private async changed(): Promise<void> {
    await this.reload().catch((err: unknown) => this.logger.error({ err }, 'reloading the IP blacklist failed'));
    await this.pubsub
      .publish(BLACKLIST_CHANNEL, { origin: this.origin })
      .catch((err: unknown) => this.logger.error({ err }, `publishing a blacklist change failed; other instances catch up within ${RELOAD_EVERY_MS / 1000} s`));
  }

  // ---- rules ---------------------------------------------------------------------------------

  /** Refuses an active rule that covers the caller's own address (the caller would lock themself out). */
  private refuseSelfLockout(rule: IpRule, status: number, callerIp: string) {
    if (status === 1 && ruleCovers(rule, callerIp)) {
      throw new AppError(E.OPERATION_FAILED, {
        detail: msg('admin.blacklists.ruleCoversCaller', { text: rule.text, callerIp }),
        details: { field: 'ip' },
      });
    }
  }

  async list(q: { page: number; page_size: number; ip?: string | undefined; status?: number | undefined; order_by: string }) {
    return this.rules.page(q, q);
  }

  async get(id: number): Promise<BlacklistRow> {
    const [row] = await this.rowOf.execute({ id });
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.blacklists.ruleNotFound', { id }) });
    return row;
  }

  async create(input: { ip: string; remark?: string | undefined; status?: number | undefined }, callerIp: string): Promise<BlacklistRow> {
    const rule = canonical(input.ip);
    const status = input.status ?? 1;
    this.refuseSelfLockout(rule, status, callerIp);
    let row: BlacklistRow | undefined;
    try {
      [row] = await this.orm.insert(blacklists).values({ ip: rule.text, remark: input.remark?.trim() ?? '', status }).returning();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.blacklists.ruleAlreadyExists', { text: rule.text }), details: { field: 'ip' } });
      throw err;
    }
    await this.changed();
    return row!;
  }

  async update(id: number, input: { ip?: string | undefined; remark?: string | undefined; status?: number | undefined }, callerIp: string): Promise<BlacklistRow> {
    const current = await this.get(id);
    const rule = canonical(input.ip ?? current.ip);
    const status = input.status ?? current.status;
    if (input.ip !== undefined || input.status !== undefined) this.refuseSelfLockout(rule, status, callerIp);
    let row: BlacklistRow | undefined;
    try {
      [row] = await this.orm
        .update(blacklists)
        // Fields absent from the request are undefined, which the builder leaves out of the SET.
        .set({
          ip: rule.text,
          status,
          remark: input.remark?.trim(),
          updatedAt: new Date(),
        })
        .where(eq(blacklists.id, id))
        .returning();
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError(E.ALREADY_EXISTS, { detail: msg('admin.blacklists.ruleAlreadyExists', { text: rule.text }), details: { field: 'ip' } });
      throw err;
    }
    if (!row) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.blacklists.ruleNotFound', { id }) });
    await this.changed();
    return row;
  }

  async remove(id: number): Promise<void> {
    const { deleted } = await this.removeMany([id]);
    if (deleted === 0) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.blacklists.ruleNotFound', { id }) });
  }

  /** Deletes the given rules in one statement (all or nothing); ids that do not exist are reported. */
  async removeMany(ids: number[]): Promise<{ deleted: number; not_found: number[] }> {
    const gone = await this.orm.delete(blacklists).where(inArray(blacklists.id, ids)).returning({ id: blacklists.id });
    if (gone.length > 0) await this.changed();
    const found = new Set(gone.map((r) => r.id));
    return { deleted: gone.length, not_found: ids.filter((id) => !found.has(id)) };
  }
}
