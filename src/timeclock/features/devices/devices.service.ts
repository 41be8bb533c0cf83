// Device binding (DESIGN §7.5): a worker has at most one device, bound by their first successful
// login (or by registering it); a device belongs to one worker at most. Another device is refused
// until a manager resets the binding. Managers are not bound. Every refusal for a foreign device
// is recorded as a `device_mismatch` security event.
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database } from '../../../platform/db/database.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Caller } from '../../kernel/auth.ts';
import { devices, users } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { normaliseDevice } from '../../http.ts';
import type { SecurityEvents } from '../../kernel/security-events.ts';
import type { BindOutcome, DeviceBinding, DeviceInfo, DeviceMismatch } from '../../kernel/device-binding.ts';
import type { RegisterReply, ValidateReply } from './devices.schema.ts';
import { msg } from '../../../platform/i18n.ts';

/** A binding as the raw statements of bindOrCheck return it. */
interface BindingTimes {
  registered_at: Date;
  last_seen: Date;
}

const info = (r: typeof devices.$inferSelect): Static<typeof DeviceInfo> => ({
  registeredAt: r.registeredAt.toISOString(), lastSeen: r.lastSeen.toISOString(),
});

export class DevicesService implements DeviceBinding {
  private readonly db: Database;
  private readonly securityEvents: SecurityEvents;
  /** The role of a user who is not deleted (every validate and register asks). */
  private readonly roleOf;
  constructor({ db, securityEvents }: { db: Database; securityEvents: SecurityEvents }) {
    this.db = db;
    this.securityEvents = securityEvents;
    this.roleOf = db.orm.select({ role: users.role }).from(users).where(and(eq(users.id, p('user_id')), isNull(users.deletedAt))).prepare('tc_device_user_role');
  }

  /**
   * Binds `deviceUuid` to the worker when they have none and nobody else holds it, or accepts
   * it when it is already theirs (updating lastSeen). Atomic: of two first logins on different
   * devices exactly one binds.
   */
  async bindOrCheck(userId: number, deviceUuid: string): Promise<BindOutcome> {
    const device = normaliseDevice(deviceUuid);
    // Raw: every worker login runs these (measured hot).
    const [inserted] = await this.db.query<BindingTimes>(
      `INSERT INTO timeclock.devices (user_id, device_uuid) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING registered_at, last_seen`,
      [userId, device],
    );
    if (inserted) return { ok: true, device: infoOfTimes(inserted), newlyBound: true };
    const [mine] = await this.db.query<BindingTimes>(
      `UPDATE timeclock.devices SET last_seen = now() WHERE user_id = $1 AND device_uuid = $2 RETURNING registered_at, last_seen`,
      [userId, device],
    );
    if (mine) return { ok: true, device: infoOfTimes(mine), newlyBound: false };
    // A device held by someone else is named as such, whether or not this worker has another one.
    const [held] = await this.db.query(`SELECT 1 FROM timeclock.devices WHERE device_uuid = $1`, [device]);
    return { ok: false, reason: held ? 'device_of_another_user' : 'bound_to_another_device' };
  }

  /**
   * `POST /device/register`. A worker registers for themself: binds when unbound, accepts their
   * own device again, and is refused another device (403) until a manager resets the binding.
   * A manager may register a device for a worker, replacing the worker's binding. A device
   * held by another worker is a 409 either way.
   */
  async register(caller: Caller, userId: number, deviceUuid: string): Promise<Static<typeof RegisterReply>> {
    const device = normaliseDevice(deviceUuid);
    await this.requireWorker(userId);
    if (caller.role === 'manager') {
      const row = await this.db.transaction(async (tx) => {
        const [holder] = await tx.orm.select({ userId: devices.userId }).from(devices).where(eq(devices.deviceUuid, device)).for('update');
        if (holder && holder.userId !== userId) throw this.registeredElsewhere();
        if (holder) {
          const [same] = await tx.orm.update(devices).set({ lastSeen: sql`now()` }).where(eq(devices.userId, userId)).returning();
          return same!;
        }
        await tx.orm.delete(devices).where(eq(devices.userId, userId));
        const [created] = await tx.orm.insert(devices).values({ userId, deviceUuid: device }).returning();
        return created!;
      }).catch((err: unknown) => {
        if (err instanceof AppError) throw err;
        // The device was bound to someone else meanwhile (unique device_uuid).
        if (isUniqueViolation(err)) throw this.registeredElsewhere();
        throw err;
      });
      return { message: 'Device registered', deviceUuid: row.deviceUuid, registeredAt: row.registeredAt.toISOString() };
    }
    const outcome = await this.bindOrCheck(userId, device);
    if (!outcome.ok) {
      await this.recordMismatch({ userId, deviceUuid: device, reason: outcome.reason, source: 'register' });
      if (outcome.reason === 'device_of_another_user') throw this.registeredElsewhere();
      throw new AppError(E.DEVICE_NOT_AUTHORIZED, {
        detail: msg('timeclock.devices.otherDeviceBound'),
        details: { reason: outcome.reason },
      });
    }
    return {
      message: outcome.newlyBound ? 'Device registered' : 'Device already registered',
      deviceUuid: device,
      registeredAt: outcome.device.registeredAt,
    };
  }

  /**
   * `POST /device/validate`: whether `deviceUuid` is the worker's bound device (lastSeen is
   * updated when it is). Managers are not bound: always valid. A worker without a device gets
   * `valid: false`; a device that is not theirs is a 403 (recorded).
   */
  async validate(userId: number, deviceUuid: string): Promise<Static<typeof ValidateReply>> {
    const device = normaliseDevice(deviceUuid);
    const user = await this.user(userId);
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.devices.userNotFound', { userId }), details: { userId } });
    if (user.role === 'manager') return { valid: true, message: 'Managers are not bound to a device', deviceInfo: null };
    const [mine] = await this.db.orm
      .update(devices)
      .set({ lastSeen: sql`now()` })
      .where(and(eq(devices.userId, userId), eq(devices.deviceUuid, device)))
      .returning();
    if (mine) return { valid: true, message: 'Device is registered to this user', deviceInfo: info(mine) };
    const [bound] = await this.db.orm.select({ userId: devices.userId }).from(devices).where(eq(devices.userId, userId));
    const [held] = await this.db.orm.select({ userId: devices.userId }).from(devices).where(eq(devices.deviceUuid, device));
    if (!bound && !held) {
      return { valid: false, message: 'No device is registered for this user; the next login or registration binds one', deviceInfo: null };
    }
    const reason = bound ? 'bound_to_another_device' : 'device_of_another_user';
    await this.recordMismatch({ userId, deviceUuid: device, reason, source: 'validate' });
    throw new AppError(E.DEVICE_NOT_AUTHORIZED, { detail: msg('timeclock.devices.deviceNotBound'), details: { reason } });
  }

  /** Forgets a worker's binding (manager reset); the next login binds again. */
  async reset(userId: number): Promise<void> {
    await this.requireWorker(userId);
    await this.db.orm.delete(devices).where(eq(devices.userId, userId));
  }

  /** Records a device refusal in its own transaction; a failure to record does not change the answer. */
  async recordMismatch(d: DeviceMismatch): Promise<void> {
    await this.securityEvents.recordSeparately({
      userId: d.userId,
      type: 'device_mismatch',
      severity: 'medium',
      details: { deviceUuid: d.deviceUuid, reason: d.reason, source: d.source },
    });
  }

  private async user(userId: number) {
    const [user] = await this.roleOf.execute({ user_id: userId });
    return user;
  }

  private async requireWorker(userId: number): Promise<void> {
    const user = await this.user(userId);
    if (!user) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.devices.userNotFound', { userId }), details: { userId } });
    if (user.role !== 'worker') {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.devices.managersUnbound'), details: { field: 'userId' } });
    }
  }

  private registeredElsewhere() {
    return new AppError(E.DEVICE_ALREADY_REGISTERED, { detail: msg('timeclock.devices.deviceOfAnotherUser'), details: { field: 'deviceUuid' } });
  }
}

const infoOfTimes = (r: BindingTimes): Static<typeof DeviceInfo> => ({ registeredAt: r.registered_at.toISOString(), lastSeen: r.last_seen.toISOString() });
