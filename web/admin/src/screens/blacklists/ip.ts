// The forms a blacklist rule takes, checked in the form before the server sees them: an IPv4 or
// IPv6 address, a CIDR block (prefix up to 32 / 128) or a range `start-end` of one family. The
// server remains the judge (a range whose start is after its end, a duplicate, one's own address).

type Family = 4 | 6;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function familyOf(text: string): Family | null {
  if (IPV4.test(text)) return 4;
  if (!text.includes(':') || text.includes('%') || /[^0-9A-Fa-f:.]/.test(text)) return null;
  try {
    new URL(`http://[${text}]/`);
    return 6;
  } catch {
    return null;
  }
}

/** Whether `text` is a rule the server can take (see above). */
export function isRule(raw: string): boolean {
  const text = raw.trim();
  if (!text || text.length > 100) return false;
  const slash = text.split('/');
  if (slash.length === 2) {
    const family = familyOf(slash[0]!);
    const prefix = slash[1]!;
    return family !== null && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  }
  if (slash.length > 2) return false;
  const dash = text.split('-');
  if (dash.length === 2) {
    const a = familyOf(dash[0]!.trim());
    return a !== null && a === familyOf(dash[1]!.trim());
  }
  return dash.length === 1 && familyOf(text) !== null;
}
