// Geofence geometry, pure functions. A site's `fence` (stored as jsonb) is one of:
//
//   { "type": "circle",  "center": { "latitude": 48.8566, "longitude": 2.3522 }, "radiusMetres": 100 }
//   { "type": "polygon", "points": [ { "latitude": ..., "longitude": ... }, ... ] }   (3+ vertices,
//                                                                                      not closed, any winding)
//
// Distances are great-circle (haversine, mean Earth radius). Polygon tests work in a local flat
// projection around the point, accurate for fences up to tens of kilometres; a polygon must not
// cross the antimeridian or contain a pole.
import { msg, type Msg } from '../../platform/i18n.ts';

export interface Point {
  latitude: number;
  longitude: number;
}

export type Fence =
  | { type: 'circle'; center: Point; radiusMetres: number }
  | { type: 'polygon'; points: Point[] };

export const EARTH_RADIUS_METRES = 6_371_008.8;

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance between two points, in metres (haversine). */
export function distanceMetres(a: Point, b: Point): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Whether `point` is inside `fence` (its boundary counts as inside), and when outside how far
 * it is from the fence's edge in metres (the shortest way in); 0 when inside.
 */
export function insideFence(fence: Fence, point: Point): { inside: boolean; distanceMetres: number } {
  if (fence.type === 'circle') {
    const d = distanceMetres(fence.center, point);
    return d <= fence.radiusMetres ? { inside: true, distanceMetres: 0 } : { inside: false, distanceMetres: d - fence.radiusMetres };
  }
  // Local equirectangular projection centred on the point: metres east (x) and north (y).
  const kx = rad(1) * EARTH_RADIUS_METRES * Math.cos(rad(point.latitude));
  const ky = rad(1) * EARTH_RADIUS_METRES;
  const xy = fence.points.map((p) => [wrapDegrees(p.longitude - point.longitude) * kx, (p.latitude - point.latitude) * ky] as const);
  let inside = false;
  let nearest = Infinity;
  for (let i = 0, j = xy.length - 1; i < xy.length; j = i++) {
    const [xi, yi] = xy[i]!;
    const [xj, yj] = xy[j]!;
    if (yi > 0 !== yj > 0 && 0 < ((xj - xi) * (0 - yi)) / (yj - yi) + xi) inside = !inside;
    nearest = Math.min(nearest, distanceToSegment(xi, yi, xj, yj));
  }
  if (nearest < 1e-6) inside = true; // on the boundary
  return inside ? { inside: true, distanceMetres: 0 } : { inside: false, distanceMetres: nearest };
}

/** Why a fence is not usable, or null. (The schema checks types and ranges; this checks shape.) */
export function fenceProblem(fence: Fence): Msg | null {
  if (fence.type === 'circle') return null;
  const distinct = new Set(fence.points.map((p) => `${p.latitude},${p.longitude}`));
  if (distinct.size < 3) return msg('timeclock.sites.polygonTooFewPoints');
  const lons = fence.points.map((p) => p.longitude);
  if (Math.max(...lons) - Math.min(...lons) > 180) return msg('timeclock.sites.polygonAntimeridian');
  return null;
}

/** Distance from the origin to the segment (x1,y1)-(x2,y2). */
function distanceToSegment(x1: number, y1: number, x2: number, y2: number): number {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(x1 * dx + y1 * dy) / len2));
  return Math.hypot(x1 + t * dx, y1 + t * dy);
}

function wrapDegrees(d: number): number {
  return ((((d + 180) % 360) + 360) % 360) - 180;
}
