// A site's fence on a Leaflet map: a circle (centre and radius) or a polygon (vertices). Tiles
// come from the console settings (CLOCK_MAP_TILE_URL); without them — the default, and any
// machine without internet access — the fence is drawn on a plain grid, which is enough to see
// its shape and to click points. Clicking the map reports the point (the editor decides what it
// means). Also shows the workers' positions on the live board when given.
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { useEffect, useRef } from 'react';

export type Point = { latitude: number; longitude: number };
export type Fence = { type: 'circle'; center: Point; radiusMetres: number } | { type: 'polygon'; points: Point[] };

const valid = (p: Partial<Point> | undefined): p is Point =>
  !!p && typeof p.latitude === 'number' && typeof p.longitude === 'number' && Math.abs(p.latitude) <= 90 && Math.abs(p.longitude) <= 180;

export function FenceMap({ fence, tileUrl, attribution, onPick, label, className = '' }: {
  fence: Fence | null;
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

  useEffect(() => {
    if (!box.current) return;
    const m = L.map(box.current, { center: [0, 0], zoom: 2, attributionControl: !!tileUrl, zoomControl: true });
    if (tileUrl) L.tileLayer(tileUrl, { maxZoom: 19, attribution: attribution ?? '' }).addTo(m);
    layer.current = L.layerGroup().addTo(m);
    m.on('click', (e: L.LeafletMouseEvent) => pick.current?.({ latitude: Number(e.latlng.lat.toFixed(6)), longitude: Number(e.latlng.lng.toFixed(6)) }));
    map.current = m;
    return () => {
      m.remove();
      map.current = null;
    };
  }, [tileUrl, attribution]);

  useEffect(() => {
    const m = map.current;
    const g = layer.current;
    if (!m || !g) return;
    g.clearLayers();
    const style = { color: '#0b6e4f', weight: 2, fillOpacity: 0.15 };
    let bounds: L.LatLngBounds | null = null;
    if (fence?.type === 'circle' && valid(fence.center) && fence.radiusMetres > 0) {
      const c = L.circle([fence.center.latitude, fence.center.longitude], { ...style, radius: fence.radiusMetres }).addTo(g);
      L.circleMarker([fence.center.latitude, fence.center.longitude], { radius: 4, color: '#0b6e4f', fillOpacity: 1 }).addTo(g);
      // A circle's bounds need the map's projection: computed once it is on the map.
      bounds = c.getBounds();
    } else if (fence?.type === 'polygon') {
      const pts = fence.points.filter(valid).map((p) => L.latLng(p.latitude, p.longitude));
      if (pts.length >= 3) L.polygon(pts, style).addTo(g);
      else if (pts.length === 2) L.polyline(pts, style).addTo(g);
      for (const p of pts) L.circleMarker(p, { radius: 4, color: '#0b6e4f', fillOpacity: 1 }).addTo(g);
      if (pts.length > 0) bounds = L.latLngBounds(pts);
    }
    if (bounds?.isValid()) m.fitBounds(bounds.pad(0.4), { maxZoom: 18 });
  }, [fence]);

  return <div ref={box} className={`fence-map${tileUrl ? ' with-tiles' : ''} ${className}`} role="application" aria-label={label} />;
}
