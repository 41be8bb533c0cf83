// The phone's position, high accuracy, with its accuracy radius; failures as a reason the worker
// can act on (not allowed, not found, too slow, no API).

export interface Position {
  latitude: number;
  longitude: number;
  accuracy: number | null;
  /** ISO 8601: when the phone took it. */
  at: string;
}

export type GeoFailure = 'denied' | 'unavailable' | 'timeout' | 'unsupported';

export class GeoError extends Error {
  override name = 'GeoError';
  readonly reason: GeoFailure;
  constructor(reason: GeoFailure) {
    super(`position ${reason}`);
    this.reason = reason;
  }
}

export function currentPosition(timeoutMs = 20_000): Promise<Position> {
  return new Promise((resolve, reject) => {
    if (typeof navigator === 'undefined' || !navigator.geolocation) return reject(new GeoError('unsupported'));
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({
        latitude: p.coords.latitude,
        longitude: p.coords.longitude,
        accuracy: Number.isFinite(p.coords.accuracy) ? p.coords.accuracy : null,
        at: new Date(p.timestamp || Date.now()).toISOString(),
      }),
      (e) => reject(new GeoError(e.code === e.PERMISSION_DENIED ? 'denied' : e.code === e.TIMEOUT ? 'timeout' : 'unavailable')),
      { enableHighAccuracy: true, timeout: timeoutMs, maximumAge: 0 },
    );
  });
}
