// This browser's device identifier, `web-<uuid>` (DESIGN §7.5): created once, kept across
// sessions, sent with every sign-in. The server binds a worker to the first device they sign in
// with. crypto.randomUUID exists only on secure origins (HTTPS, localhost): elsewhere the UUID is
// made from crypto.getRandomValues, which every origin has.

const KEY = 'fieldops.clock.device';

function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function deviceId(): string {
  let id = localStorage.getItem(KEY);
  if (!id || !/^web-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) {
    id = `web-${uuid()}`;
    localStorage.setItem(KEY, id);
  }
  return id;
}

export { uuid };
