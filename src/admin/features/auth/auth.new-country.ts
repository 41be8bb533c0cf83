// The new-country notice of administrator sign-in: a successful sign-in from a public address
// in a country the account has never signed in from before notifies the account (kind
// `security`, in each reader's language) and writes a system log row (warning) naming the
// account, the country and the address, so that a sign-in by someone else abroad does not go
// unseen. The account's very first located sign-in notifies nobody: it has no earlier country to
// differ from (otherwise every account would be told once, about its usual place, when this
// first runs). A failed attempt, or one from a private, loopback or unplaced address, is not
// checked. The check starts once the sign-in's row is written and is never awaited by the sign-in,
// whose reply goes out meanwhile; a failure of the check is logged, never the sign-in's.
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database, Orm } from '../../../platform/db/database.ts';
import type { IpLocation } from '../../../platform/geo/ip-location.ts';
import { countryMsg, msg } from '../../../platform/i18n.ts';
import { p } from '../../../platform/db/statements.ts';
import { loginLogs } from '../../db/schema.ts';
import type { SystemLog } from '../../kernel/log-records.ts';
import type { Notifier } from '../../kernel/notifier.ts';

/**
 * The predicate of the partial index login_logs_admin_country_idx (migration 0021) as literals:
 * written as parameters, a generic plan of the prepared statement could not use that index.
 */
const locatedSuccess = sql`(${loginLogs.status} = 1 AND ${loginLogs.country} <> '')`;

/**
 * The account's (placeholder `adminId`) located successful sign-ins before its login-log row
 * `logId`: one in the country `country`, and one anywhere. Rows after `logId` (concurrent sign-ins)
 * do not count, so of two sign-ins from a new country at once the earlier one reports it (both
 * may, when neither row was committed as the other was checked).
 */
export const earlierSignIns = (orm: Orm) => ({
  inCountry: orm.select({ id: loginLogs.id }).from(loginLogs)
    .where(and(eq(loginLogs.adminId, p('adminId')), locatedSuccess, eq(loginLogs.country, p('country')), lt(loginLogs.id, p('logId'))))
    .limit(1).prepare('login_country_seen'),
  anywhere: orm.select({ id: loginLogs.id }).from(loginLogs)
    .where(and(eq(loginLogs.adminId, p('adminId')), locatedSuccess, lt(loginLogs.id, p('logId'))))
    .limit(1).prepare('login_located_before'),
});

/** A successful sign-in as the notice needs it. */
export interface SignIn {
  adminId: number;
  username: string;
  ip: string;
  location: IpLocation;
  /** Its login-log row. */
  logId: number;
  traceId?: string | undefined;
}

export class NewCountryNotice {
  private readonly notifier: Notifier;
  private readonly systemLog: SystemLog;
  private readonly logger: Logger;
  private readonly earlier: ReturnType<typeof earlierSignIns>;
  constructor(deps: { db: Database; notifier: Notifier; systemLog: SystemLog; logger: Logger }) {
    this.notifier = deps.notifier;
    this.systemLog = deps.systemLog;
    this.logger = deps.logger;
    this.earlier = earlierSignIns(deps.db.orm);
  }

  /** Checks `signIn` in the background (see the file's header); returns at once and never throws. */
  watch(signIn: SignIn): void {
    if (signIn.location.kind !== 'public') return;
    this.check(signIn).catch((err: unknown) => {
      this.logger.warn({ err, admin_id: signIn.adminId, login_log_id: signIn.logId }, 'checking a sign-in for a new country failed');
    });
  }

  private async check(signIn: SignIn): Promise<void> {
    const { adminId, username, ip, location, logId } = signIn;
    const values = { adminId, country: location.country, logId };
    if ((await this.earlier.inCountry.execute(values)).length > 0) return;
    if ((await this.earlier.anywhere.execute(values)).length === 0) return;
    this.systemLog.system('warning', `administrator ${username} signed in from a new country or region: ${location.country} (${ip})`, {
      admin_id: adminId,
      username,
      ip,
      country: location.country,
      city: location.city,
      login_log_id: logId,
    }, signIn.traceId);
    await this.notifier.notify(adminId, {
      kind: 'security',
      title: msg('admin.notifications.system.newCountryTitle'),
      content: msg('admin.notifications.system.newCountry', { country: countryMsg(location.country), ip }),
    });
  }
}
