// The phone's position, once (a tap) or followed (the clock screen), high accuracy, with its
// accuracy radius; failures as a reason the worker can act on (not allowed, not found, too slow, no API).

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

const OPTIONS = { enableHighAccuracy: true, maximumAge: 0 };

const position = (p: GeolocationPosition): Position => ({
  latitude: p.coords.latitude,
  longitude: p.coords.longitude,
  accuracy: Number.isFinite(p.coords.accuracy) ? p.coords.accuracy : null,
  at: new Date(p.timestamp || Date.now()).toISOString(),
});

const failure = (e: GeolocationPositionError) => new GeoError(e.code === e.PERMISSION_DENIED ? 'denied' : e.code === e.TIMEOUT ? 'timeout' : 'unavailable');

const supported = () => typeof navigator !== 'undefined' && !!navigator.geolocation;

export function currentPosition(timeoutMs = 20_000): Promise<Position> {
  return new Promise((resolve, reject) => {
    if (!supported()) return reject(new GeoError('unsupported'));
    navigator.geolocation.getCurrentPosition((p) => resolve(position(p)), (e) => reject(failure(e)), { ...OPTIONS, timeout: timeoutMs });
  });
}

/**
 * Follows the position until the returned function is called: every fix to `onPosition`, every
 * failure to `onFailure` (the watch goes on after a timeout or a lost fix, not after a refusal).
 */
export function watchPosition(onPosition: (p: Position) => void, onFailure: (e: GeoError) => void, timeoutMs = 20_000): () => void {
  if (!supported()) {
    onFailure(new GeoError('unsupported'));
    return () => undefined;
  }
  const id = navigator.geolocation.watchPosition((p) => onPosition(position(p)), (e) => onFailure(failure(e)), { ...OPTIONS, timeout: timeoutMs });
  return () => navigator.geolocation.clearWatch(id);
}
