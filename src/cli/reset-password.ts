// `npm run reset-password -- admin <username>` or `-- timeclock <username>`: an operator sets a
// new password for an account whose password is lost (the bootstrap one included). A random
// password is generated and printed once, or one is read from standard input with --stdin. The
// account's sessions end everywhere, its sign-in lockout is cleared, and the action is recorded
// in the operation log as done from the command line, all in one transaction.
// Same configuration as the server (DATABASE_URL, or the embedded database under DATA_DIR,
// which the server must not have open at the same time: it refuses, naming the process).
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { operationLogs } from '../admin/db/schema.ts';
import { recoverAdminAccount } from '../admin/features/admins/admins.recovery.ts';
import { PASSWORD_RULE } from '../admin/kernel/admin-identity.schema.ts';
import { AUTH_CHANNEL } from '../admin/kernel/sessions.ts';
import { hashPassword } from '../platform/auth/password.ts';
import { TIMECLOCK_AUTH_CHANNEL } from '../timeclock/kernel/auth.ts';
import { recoverTimeclockAccount } from '../timeclock/features/auth/auth.recovery.ts';
import { runCommand } from './command.ts';

const USAGE = `usage: npm run reset-password -- <admin|timeclock> <username> [--stdin]
  admin      an administrator of the back office
  timeclock  a time-clock worker or manager
  --stdin    read the new password from standard input (${PASSWORD_RULE.minLength} to ${PASSWORD_RULE.maxLength} characters) instead of generating one`;

function usage(problem?: string): never {
  if (problem) process.stderr.write(`${problem}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ allowPositionals: true, options: { stdin: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
}
try {
  parsed = parse();
} catch (err) {
  usage((err as Error).message);
}
if (parsed.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [service, username] = parsed.positionals;
if (parsed.positionals.length !== 2 || (service !== 'admin' && service !== 'timeclock') || !username?.trim()) usage();

let password: string;
if (parsed.values.stdin) {
  password = (await text(process.stdin)).replace(/\r?\n$/, '');
  const length = [...password].length;
  if (length < PASSWORD_RULE.minLength || length > PASSWORD_RULE.maxLength) {
    usage(`the password from standard input must have ${PASSWORD_RULE.minLength} to ${PASSWORD_RULE.maxLength} characters (it has ${length})`);
  }
} else {
  password = randomBytes(12).toString('base64url');
}

const started = Date.now();
const operator = (() => {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'unknown');
  }
})();

await runCommand(async (platform) => {
  const passwordHash = await hashPassword(password);
  const result = await platform.db.transaction(async (tx) => {
    const recovered = service === 'admin'
      ? await recoverAdminAccount(tx, username, passwordHash)
      : await recoverTimeclockAccount(tx, username, passwordHash);
    if (!recovered) return null;
    await tx.orm.insert(operationLogs).values({
      adminId: null,
      username: `cli:${operator}`.slice(0, 64),
      module: service, // the API's reset is admin.reset_password too
      action: 'reset_password',
      method: 'CLI',
      route: 'reset-password',
      path: `reset-password ${service} ${recovered.username}`.slice(0, 2048),
      userAgent: `reset-password command on ${hostname()}`.slice(0, 512),
      params: { service, username: recovered.username, id: recovered.id },
      statusCode: 200,
      durationMs: Date.now() - started,
      traceId: randomUUID().replaceAll('-', ''),
    });
    return recovered;
  });
  if (!result) {
    process.stderr.write(`no ${service === 'admin' ? 'administrator' : 'time-clock account'} is named "${username}"\n`);
    process.exitCode = 1;
    return;
  }
  let effects: string;
  if ('endedSessions' in result) {
    // Instances drop the sessions from their caches now (they also recheck within SESSION_CACHE_MS).
    await platform.pubsub.publish(AUTH_CHANNEL, { admins: [result.id], sessions: result.endedSessions });
    effects = `${result.endedSessions.length} session(s) ended; sign-in lockout cleared.`;
  } else {
    // Instances drop the account from their caches now (they also recheck within a second).
    await platform.pubsub.publish(TIMECLOCK_AUTH_CHANNEL, { users: [result.id] });
    effects = `Every token issued before now is refused (within a second on running servers); sign-in lockout cleared.`;
  }
  const who = 'role' in result ? `time-clock ${result.role}` : 'administrator';
  process.stdout.write(
    parsed.values.stdin
      ? `Password of ${who} "${result.username}" set from standard input.\n${effects}\nRecorded in the operation log.\n`
      : `New password of ${who} "${result.username}" (shown once, not stored anywhere readable):\n\n    ${password}\n\n${effects}\nRecorded in the operation log.\n`,
  );
});
