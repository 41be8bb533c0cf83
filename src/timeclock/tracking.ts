// When a worker was last seen and whether they are tracking, from their newest position
// (`last_positions`, the newest by the device's own timestamp, from location updates and clock
// events alike). Both come from the position's own time, not from when it arrived: a phone that
// re-sends an old position is not tracking, and its "last seen" does not move. A device whose
// clock runs ahead is taken at its receipt instead (a position cannot be newer than its arrival).
// Used by the location status, the manager's worker detail and the live board.
import { sql } from 'drizzle-orm';
import { lastPositions } from './db/schema.ts';

/** The newest position's time as tracking counts it: its device time, never later than its receipt. */
export const positionTime = sql`least(${lastPositions.recordedAt}, ${lastPositions.receivedAt})`;

/** True while the newest position was taken within `windowSeconds` (TRACKING_WINDOW_SECONDS); false without one. */
export const isTrackingWithin = (windowSeconds: number) =>
  sql<boolean>`coalesce(${positionTime} > now() - make_interval(secs => ${windowSeconds}::int), false)`;
