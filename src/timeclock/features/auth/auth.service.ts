// Worker and manager sign-in. Unknown usernames verify a dummy hash, so that they answer
// exactly like a wrong password (401 INVALID_CREDENTIALS) in about the same time. A disabled
// account is told so only after the right password. Workers are bound to one device
// (DESIGN §7.5); managers are not.
import { expiryIn } from '../../../platform/auth/jwt.ts';
import { verifyAgainstDummy, verifyPassword } from '../../../platform/auth/password.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Caller, Role } from '../../auth.ts';
import type { TimeclockContext } from '../../context.ts';
import { E } from '../../errors.ts';
import { num } from '../../http.ts';
import type { DevicesService } from '../devices/devices.service.ts';

export class AuthService {
  private readonly ctx: TimeclockContext;
  private readonly devices: DevicesService;
  constructor(ctx: TimeclockContext, devices: DevicesService) {
    this.ctx = ctx;
    this.devices = devices;
  }

  async login(input: { username: string; password: string; deviceUuid: string }): Promise<{ token: string; fullName: string }> {
    const [user] = await this.ctx.platform.db.query<{ id: number | string; password_hash: string; full_name: string; role: Role; status: number }>(
      `SELECT id, password_hash, full_name, role, status FROM timeclock.users
       WHERE lower(username) = lower($1) AND deleted_at IS NULL`,
      [input.username.trim()],
    );
    const passwordOk = user ? await verifyPassword(user.password_hash, input.password) : await verifyAgainstDummy(input.password);
    if (!user || !passwordOk) throw new AppError(E.INVALID_CREDENTIALS);
    if (user.status !== 1) throw new AppError(E.ACCOUNT_DISABLED);
    const userId = num(user.id);
    if (user.role === 'worker') {
      const outcome = await this.devices.bindOrCheck(userId, input.deviceUuid);
      if (!outcome.ok) {
        await this.devices.recordMismatch({ userId, deviceUuid: input.deviceUuid.toLowerCase(), reason: outcome.reason, source: 'login' });
        throw new AppError(E.DEVICE_NOT_AUTHORIZED, {
          detail: outcome.reason === 'bound_to_another_device'
            ? 'this account is bound to another device; ask a manager to reset it'
            : 'this device is registered to another user',
          details: { reason: outcome.reason },
        });
      }
    }
    return { token: this.sign({ userId, role: user.role }), fullName: user.full_name };
  }

  /** A new token for the caller (whose token and account the route's hook has checked). */
  refresh(caller: Caller): { token: string } {
    try {
      return { token: this.sign(caller) };
    } catch (err) {
      this.ctx.platform.logger.error({ err, userId: caller.userId }, 'token refresh failed');
      throw new AppError(E.INTERNAL_ERROR, { detail: 'refresh failed' });
    }
  }

  private sign(claims: Caller): string {
    return this.ctx.jwt.sign({ userId: claims.userId, role: claims.role }, expiryIn(this.ctx.platform.config.TIMECLOCK_TOKEN_TTL));
  }
}
