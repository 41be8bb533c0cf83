// A site's fence on a Leaflet map: a circle (centre and radius) or a polygon (vertices). Tiles
// come from the console settings (CLOCK_MAP_TILE_URL); without them — the default, and any
// machine without internet access — the fence is drawn on a plain grid, which is enough to see
// its shape and to click points. Clicking the map reports the point (the editor decides what it
// means). The live board gives it several fences and the workers' last positions (`markers`,
// coloured by inside / outside the fence, with their accuracy); a correction's evidence gives it a
// worker's trail (`trail`: a line through their positions in time order, each a small dot coloured
// by inside / outside, its time on hover) and the point the trail suggests (a marker drawn as a
// ring, `shape: 'ring'`). The view is fitted to what it
// shows when `fitKey` changes (by default whenever the fence does), and on a refresh only when
// something shown has left the view and the manager has not moved the map themself since: their
// own zoom and pan stay.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'react';

export type Point = { latitude: number; longitude: number };
export type Fence = { type: 'circle'; center: Point; radiusMetres: number } | { type: 'polygon'; points: Point[] };
export interface Marker extends Point {
  /** Shown next to the point (text only). */
  label: string;
  /** metres, drawn as a light circle; null when unknown */
  accuracy: number | null;
  /** inside the fence, outside it, or unknown */
  state: 'inside' | 'outside' | 'unknown';
  /** an old position (not tracking): drawn faded */
  stale: boolean;
  /** `ring`: a point to look at (the time a trail suggests), drawn as a large ring around it */
  shape?: 'dot' | 'ring';
}
/** One position of a trail: its state colours it, its label (a time) shows on hover. */
export interface TrailPoint extends Point {
  label: string;
  state: Marker['state'];
}

const MARKER_COLOUR = { inside: '#0b6e4f', outside: '#b42318', unknown: '#667085' } as const;
const RING_COLOUR = '#1d4ed8';
const NONE: never[] = [];

const valid = (p: Partial<Point> | undefined): p is Point =>
  !!p && typeof p.latitude === 'number' && typeof p.longitude === 'number' && Math.abs(p.latitude) <= 90 && Math.abs(p.longitude) <= 180;

export function FenceMap({ fence, fences = NONE, markers = NONE, trail = NONE, fitKey, tileUrl, attribution, onPick, label, className = '' }: {
  fence: Fence | null;
  /** more fences, drawn like `fence` (the sites on the live board) */
  fences?: Fence[];
  markers?: Marker[];
  /** positions in time order, joined by a line */
  trail?: TrailPoint[];
  /** the view is fitted again when this changes (default: the fences) */
  fitKey?: string;
  tileUrl: string | null;
  attribution?: string;
  onPick?: (p: Point) => void;
  label: string;
  className?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const layer = useRef<L.LayerGroup | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const fitted = useRef<string | null>(null);
  /** The manager has zoomed or panned since the last fit. */
  const moved = useRef(false);

  useEffect(() => {
    if (!box.current) return;
    const m = L.map(box.current, { center: [0, 0], zoom: 2, attributionControl: !!tileUrl, zoomControl: true });
    if (tileUrl) L.tileLayer(tileUrl, { maxZoom: 19, attribution: attribution ?? '' }).addTo(m);
    layer.current = L.layerGroup().addTo(m);
    m.on('click', (e: L.LeafletMouseEvent) => pick.current?.({ latitude: Number(e.latlng.lat.toFixed(6)), longitude: Number(e.latlng.lng.toFixed(6)) }));
    map.current = m;
    // Only people press, touch or scroll (a fit moves the map without these).
    const touched = () => { moved.current = true; };
    const el = box.current;
    el.addEventListener('pointerdown', touched);
    el.addEventListener('wheel', touched, { passive: true });
    return () => {
      el.removeEventListener('pointerdown', touched);
      el.removeEventListener('wheel', touched);
      m.remove();
      map.current = null;
      fitted.current = null;
    };
  }, [tileUrl, attribution]);

  useEffect(() => {
    const m = map.current;
    const g = layer.current;
    if (!m || !g) return;
    g.clearLayers();
    const style = { color: '#0b6e4f', weight: 2, fillOpacity: 0.15 };
    const shown: L.LatLngBounds[] = [];
    for (const f of fence ? [fence, ...fences] : fences) {
      if (f.type === 'circle' && valid(f.center) && f.radiusMetres > 0) {
        const c = L.circle([f.center.latitude, f.center.longitude], { ...style, radius: f.radiusMetres }).addTo(g);
        L.circleMarker([f.center.latitude, f.center.longitude], { radius: 4, color: '#0b6e4f', fillOpacity: 1 }).addTo(g);
        // A circle's bounds need the map's projection: computed once it is on the map.
        shown.push(c.getBounds());
      } else if (f.type === 'polygon') {
        const pts = f.points.filter(valid).map((p) => L.latLng(p.latitude, p.longitude));
        if (pts.length >= 3) L.polygon(pts, style).addTo(g);
        else if (pts.length === 2) L.polyline(pts, style).addTo(g);
        for (const p of pts) L.circleMarker(p, { radius: 4, color: '#0b6e4f', fillOpacity: 1 }).addTo(g);
        if (pts.length > 0) shown.push(L.latLngBounds(pts));
      }
    }
    const path = trail.filter(valid).map((p) => L.latLng(p.latitude, p.longitude));
    if (path.length > 1) L.polyline(path, { color: '#475467', weight: 2, opacity: 0.7, dashArray: '4 4', interactive: false }).addTo(g);
    trail.filter(valid).forEach((p, i) => {
      const dot = L.circleMarker(path[i]!, { radius: 5, color: '#fff', weight: 1, fillColor: MARKER_COLOUR[p.state], fillOpacity: 1, className: `map-trail ${p.state}` }).addTo(g);
      const text = document.createElement('span');
      text.textContent = p.label;
      dot.bindTooltip(text, { direction: 'top', offset: [0, -4] });
    });
    if (path.length > 0) shown.push(L.latLngBounds(path));
    for (const w of markers.filter(valid)) {
      const at = L.latLng(w.latitude, w.longitude);
      if (w.shape === 'ring') {
        L.circleMarker(at, { radius: 14, color: RING_COLOUR, weight: 3, fill: false, className: 'map-suggested' }).addTo(g)
          .bindTooltip(Object.assign(document.createElement('span'), { textContent: w.label }), { permanent: true, direction: 'right', offset: [14, 0], className: 'map-worker-label' });
        shown.push(L.latLngBounds(at, at));
        continue;
      }
      const colour = MARKER_COLOUR[w.state];
      if (w.accuracy !== null && w.accuracy > 0) L.circle(at, { radius: w.accuracy, color: colour, weight: 1, opacity: 0.4, fillOpacity: 0.08, interactive: false }).addTo(g);
      const dot = L.circleMarker(at, {
        radius: 8, color: '#fff', weight: 2, fillColor: colour, fillOpacity: w.stale ? 0.45 : 1,
        className: `map-worker ${w.state}${w.stale ? ' stale' : ''}`,
      }).addTo(g);
      // The label as text (a name is never read as HTML).
      const text = document.createElement('span');
      text.textContent = w.label;
      dot.bindTooltip(text, { permanent: true, direction: 'top', offset: [0, -8], className: 'map-worker-label' });
      shown.push(L.latLngBounds(at, at));
    }
    const key = fitKey ?? JSON.stringify([fence, fences, trail.length]);
    const bounds = shown.reduce<L.LatLngBounds | null>((all, b) => (all ? all.extend(b) : L.latLngBounds(b.getSouthWest(), b.getNorthEast())), null);
    if (bounds?.isValid() && (key !== fitted.current || (!moved.current && !m.getBounds().contains(bounds)))) {
      fitted.current = key;
      moved.current = false;
      // Not animated: a map removed during a zoom animation (a dialog closed on Save, a page left)
      // throws in Leaflet's end-of-animation step (`_leaflet_pos` of undefined).
      m.fitBounds(bounds.pad(0.4), { maxZoom: 18, animate: false });
    }
  }, [fence, fences, markers, trail, fitKey]);

  return <div ref={box} className={`fence-map${tileUrl ? ' with-tiles' : ''} ${className}`} role="application" aria-label={label} />;
}
