// Blacklist rules as text: a single IPv4/IPv6 address, a CIDR block (`10.0.0.0/8`) or a range
// (`10.0.0.1-10.0.0.9`). parseRule validates one and gives its canonical text (host bits of a
// block cleared, IPv6 compressed and lower-case, IPv4-mapped IPv6 written as IPv4, a /32 or
// /128 block or a one-address range written as the address), so equal rules are equal text.
// Matching goes through node:net BlockList, always told the family (it assumes IPv4 otherwise);
// given the family it matches IPv4-mapped IPv6 addresses against IPv4 rules and vice versa.
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { msg, type Msg } from '../../../platform/i18n.ts';

export type Family = 'ipv4' | 'ipv6';

export type IpRule =
  | { kind: 'address'; family: Family; text: string; address: string }
  | { kind: 'subnet'; family: Family; text: string; network: string; prefix: number }
  | { kind: 'range'; family: Family; text: string; start: string; end: string };

interface Addr {
  family: Family;
  value: bigint;
}

const BITS: Record<Family, number> = { ipv4: 32, ipv6: 128 };
const MAPPED_PREFIX = 0xffffn;

/** The family of a client address as node:net sees it, or null when it is not an address. */
export function familyOf(ip: string): Family | null {
  return isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : null;
}

function parseAddress(text: string): Addr | null {
  if (isIPv4(text)) {
    return { family: 'ipv4', value: text.split('.').reduce((acc, o) => (acc << 8n) | BigInt(o), 0n) };
  }
  // No zone ids (`fe80::1%eth0`): a rule is about addresses, not interfaces.
  if (!isIPv6(text) || text.includes('%')) return null;
  let host: string;
  try {
    // The WHATWG URL parser writes IPv6 canonically, embedded IPv4 included, as hex groups.
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [left, right] = host.includes('::') ? host.split('::') as [string, string] : [host, undefined];
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const groups = right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  if (groups.length !== 8) return null;
  return { family: 'ipv6', value: groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n) };
}

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`) as the IPv4 address it stands for. */
function unmap(a: Addr): Addr {
  return a.family === 'ipv6' && a.value >> 32n === MAPPED_PREFIX ? { family: 'ipv4', value: a.value & 0xffffffffn } : a;
}

function format(a: Addr): string {
  if (a.family === 'ipv4') return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 0xffn)).join('.');
  const groups = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((a.value >> s) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

const address = (a: Addr): IpRule => {
  const text = format(a);
  return { kind: 'address', family: a.family, text, address: text };
};

/** Validates a rule and returns it in canonical form, or a sentence saying what is wrong. */
export function parseRule(input: string): IpRule | { error: Msg } {
  const text = input.trim();
  if (text === '') return { error: msg('admin.blacklists.ipEmpty') };

  if (text.includes('/')) {
    const [addrText, prefixText, ...rest] = text.split('/') as [string, string, ...string[]];
    const raw = parseAddress(addrText);
    if (!raw || rest.length > 0) return { error: msg('admin.blacklists.invalidCidr', { text }) };
    const max = BITS[raw.family];
    if (!/^(0|[1-9]\d{0,2})$/.test(prefixText) || Number(prefixText) > max) {
      return { error: msg('admin.blacklists.invalidPrefix', { text, max }) };
    }
    let prefix = Number(prefixText);
    let a = raw;
    if (raw.family === 'ipv6' && prefix >= 96 && raw.value >> 32n === MAPPED_PREFIX) {
      a = unmap(raw);
      prefix -= 96;
    }
    const bits = BigInt(BITS[a.family]);
    const hostBits = bits - BigInt(prefix);
    const network = { family: a.family, value: (a.value >> hostBits) << hostBits };
    if (hostBits === 0n) return address(network);
    const net = format(network);
    return { kind: 'subnet', family: a.family, text: `${net}/${prefix}`, network: net, prefix };
  }

  if (text.includes('-')) {
    const parts = text.split('-').map((s) => s.trim());
    const [s, e] = parts.map((p) => parseAddress(p));
    if (parts.length !== 2 || !s || !e) return { error: msg('admin.blacklists.invalidRange', { text }) };
    const start = unmap(s);
    const end = unmap(e);
    if (start.family !== end.family) return { error: msg('admin.blacklists.rangeFamiliesDiffer', { text }) };
    if (start.value > end.value) return { error: msg('admin.blacklists.rangeReversed', { text }) };
    if (start.value === end.value) return address(start);
    const a = format(start);
    const b = format(end);
    return { kind: 'range', family: start.family, text: `${a}-${b}`, start: a, end: b };
  }

  const a = parseAddress(text);
  if (!a) return { error: msg('admin.blacklists.invalidAddress', { text }) };
  return address(unmap(a));
}

export function addToBlockList(list: BlockList, rule: IpRule): void {
  switch (rule.kind) {
    case 'address':
      list.addAddress(rule.address, rule.family);
      break;
    case 'subnet':
      list.addSubnet(rule.network, rule.prefix, rule.family);
      break;
    case 'range':
      list.addRange(rule.start, rule.end, rule.family);
      break;
  }
}

/** Does `rule` cover the client address `ip`? */
export function ruleCovers(rule: IpRule, ip: string): boolean {
  const family = familyOf(ip);
  if (!family) return false;
  const list = new BlockList();
  addToBlockList(list, rule);
  return list.check(ip, family);
}

export interface MatchedRule {
  id: number;
  ip: string;
}

/**
 * The active rules of one moment: one BlockList for the yes/no of every request, and the rules
 * themselves to name the one that matched (only on a hit). Immutable: a change builds a new one.
 */
export class IpMatcher {
  private readonly all = new BlockList();
  private readonly rules: { id: number; rule: IpRule }[] = [];

  constructor(rows: { id: number; ip: string }[]) {
    for (const row of rows) {
      const rule = parseRule(row.ip);
      if ('error' in rule) continue;
      addToBlockList(this.all, rule);
      this.rules.push({ id: row.id, rule });
    }
  }

  get size(): number {
    return this.rules.length;
  }

  /** The rule blocking `ip`, or null. */
  match(ip: string): MatchedRule | null {
    if (this.rules.length === 0) return null;
    const family = familyOf(ip);
    if (!family || !this.all.check(ip, family)) return null;
    const hit = this.rules.find((r) => ruleCovers(r.rule, ip));
    return hit ? { id: hit.id, ip: hit.rule.text } : { id: 0, ip: 'unknown' };
  }
}
