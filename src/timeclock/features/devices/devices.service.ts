// Device binding (DESIGN §7.5): a worker has at most one device, bound by their first successful
// login (or by registering it); a device belongs to one worker at most. Another device is refused
// until a manager resets the binding. Managers are not bound. Every refusal for a foreign device
// is recorded as a `device_mismatch` security event.
import type { Logger } from 'pino';
import type { Database } from '../../../platform/db/database.ts';
import { isUniqueViolation } from '../../../platform/db/errors.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Caller } from '../../auth.ts';
import { E } from '../../errors.ts';
import { iso, normaliseDevice } from '../../http.ts';
import { recordSecurityEvent, type SecurityEvent } from '../security/security.service.ts';

export interface DeviceInfo {
  registeredAt: string;
  lastSeen: string;
}

export type BindOutcome =
  | { ok: true; device: DeviceInfo; newlyBound: boolean }
  | { ok: false; reason: 'bound_to_another_device' | 'device_of_another_user' };

interface DeviceRow {
  device_uuid: string;
  registered_at: Date | string;
  last_seen: Date | string;
}

const info = (r: DeviceRow): DeviceInfo => ({ registeredAt: iso(r.registered_at), lastSeen: iso(r.last_seen) });

export class DevicesService {
  private readonly db: Database;
  private readonly logger: Logger;
  constructor(db: Database, logger: Logger) {
    this.db = db;
    this.logger = logger;
  }

  /**
   * Binds `deviceUuid` to the worker when they have none and nobody else holds it, or accepts
   * it when it is already theirs (updating lastSeen). Atomic: of two first logins on different
   * devices exactly one binds.
   */
  async bindOrCheck(userId: number, deviceUuid: string): Promise<BindOutcome> {
    const device = normaliseDevice(deviceUuid);
    const inserted = await this.db.query<DeviceRow>(
      `INSERT INTO timeclock.devices (user_id, device_uuid) VALUES ($1, $2) ON CONFLICT DO NOTHING
       RETURNING device_uuid, registered_at, last_seen`,
      [userId, device],
    );
    if (inserted[0]) return { ok: true, device: info(inserted[0]), newlyBound: true };
    const [mine] = await this.db.query<DeviceRow>(
      `UPDATE timeclock.devices SET last_seen = now() WHERE user_id = $1 AND device_uuid = $2
       RETURNING device_uuid, registered_at, last_seen`,
      [userId, device],
    );
    if (mine) return { ok: true, device: info(mine), newlyBound: false };
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
  async register(caller: Caller, userId: number, deviceUuid: string): Promise<{ message: string; deviceUuid: string; registeredAt: string }> {
    const device = normaliseDevice(deviceUuid);
    await this.requireWorker(userId);
    if (caller.role === 'manager') {
      const row = await this.db.transactionRaw(async (tx) => {
        const [holder] = await tx.query<{ user_id: number | string }>(
          `SELECT user_id FROM timeclock.devices WHERE device_uuid = $1 FOR UPDATE`,
          [device],
        );
        if (holder && Number(holder.user_id) !== userId) throw this.registeredElsewhere();
        if (holder) {
          const [same] = await tx.query<DeviceRow>(
            `UPDATE timeclock.devices SET last_seen = now() WHERE user_id = $1 RETURNING device_uuid, registered_at, last_seen`,
            [userId],
          );
          return same!;
        }
        await tx.query(`DELETE FROM timeclock.devices WHERE user_id = $1`, [userId]);
        const [created] = await tx.query<DeviceRow>(
          `INSERT INTO timeclock.devices (user_id, device_uuid) VALUES ($1, $2) RETURNING device_uuid, registered_at, last_seen`,
          [userId, device],
        );
        return created!;
      }).catch((err: unknown) => {
        if (err instanceof AppError) throw err;
        // The device was bound to someone else meanwhile (unique device_uuid).
        if (isUniqueViolation(err)) throw this.registeredElsewhere();
        throw err;
      });
      return { message: 'Device registered', deviceUuid: row.device_uuid, registeredAt: iso(row.registered_at) };
    }
    const outcome = await this.bindOrCheck(userId, device);
    if (!outcome.ok) {
      await this.recordMismatch({ userId, deviceUuid: device, reason: outcome.reason, source: 'register' });
      if (outcome.reason === 'device_of_another_user') throw this.registeredElsewhere();
      throw new AppError(E.DEVICE_NOT_AUTHORIZED, {
        detail: 'another device is registered for this worker; a manager must reset the binding first',
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
  async validate(userId: number, deviceUuid: string): Promise<{ valid: boolean; message: string; deviceInfo: DeviceInfo | null }> {
    const device = normaliseDevice(deviceUuid);
    const [user] = await this.db.query<{ role: string }>(
      `SELECT role FROM timeclock.users WHERE id = $1 AND deleted_at IS NULL`,
      [userId],
    );
    if (!user) throw new AppError(E.NOT_FOUND, { detail: `user ${userId} not found`, details: { userId } });
    if (user.role === 'manager') return { valid: true, message: 'Managers are not bound to a device', deviceInfo: null };
    const [mine] = await this.db.query<DeviceRow>(
      `UPDATE timeclock.devices SET last_seen = now() WHERE user_id = $1 AND device_uuid = $2
       RETURNING device_uuid, registered_at, last_seen`,
      [userId, device],
    );
    if (mine) return { valid: true, message: 'Device is registered to this user', deviceInfo: info(mine) };
    const [bound] = await this.db.query(`SELECT 1 FROM timeclock.devices WHERE user_id = $1`, [userId]);
    const [held] = await this.db.query(`SELECT 1 FROM timeclock.devices WHERE device_uuid = $1`, [device]);
    if (!bound && !held) {
      return { valid: false, message: 'No device is registered for this user; the next login or registration binds one', deviceInfo: null };
    }
    const reason = bound ? 'bound_to_another_device' : 'device_of_another_user';
    await this.recordMismatch({ userId, deviceUuid: device, reason, source: 'validate' });
    throw new AppError(E.DEVICE_NOT_AUTHORIZED, { detail: 'this device is not registered to this user', details: { reason } });
  }

  /** Forgets a worker's binding (manager reset); the next login binds again. */
  async reset(userId: number): Promise<void> {
    await this.requireWorker(userId);
    await this.db.query(`DELETE FROM timeclock.devices WHERE user_id = $1`, [userId]);
  }

  /** Records a device refusal in its own transaction; a failure to record does not change the answer. */
  async recordMismatch(d: { userId: number; deviceUuid: string; reason: string; source: 'login' | 'register' | 'validate' }): Promise<void> {
    await recordRefusal(this.db, this.logger, {
      userId: d.userId,
      type: 'device_mismatch',
      severity: 'medium',
      details: { deviceUuid: d.deviceUuid, reason: d.reason, source: d.source },
    });
  }

  private async requireWorker(userId: number): Promise<void> {
    const [user] = await this.db.query<{ role: string }>(
      `SELECT role FROM timeclock.users WHERE id = $1 AND deleted_at IS NULL`,
      [userId],
    );
    if (!user) throw new AppError(E.NOT_FOUND, { detail: `user ${userId} not found`, details: { userId } });
    if (user.role !== 'worker') {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'managers are not bound to a device', details: { field: 'userId' } });
    }
  }

  private registeredElsewhere() {
    return new AppError(E.DEVICE_ALREADY_REGISTERED, { detail: 'this device is registered to another user', details: { field: 'deviceUuid' } });
  }
}

/**
 * Records the security event of a refused request in its own transaction (the request's own
 * work, if any, is rolled back). Recording problems are logged, not reported to the caller.
 */
export async function recordRefusal(db: Database, logger: Logger, event: SecurityEvent): Promise<void> {
  try {
    await db.transactionRaw((tx) => recordSecurityEvent(tx, event));
  } catch (err) {
    logger.error({ err, userId: event.userId, type: event.type }, 'could not record a security event');
  }
}
