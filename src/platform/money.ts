// Money as integer cents, from and to the decimal text PostgreSQL's numeric prints: sums and
// averages of amounts never pass through binary floating point. (Checking an amount a client
// sends, with its limits, is the orders feature's: orders.rules.ts.)

/** The decimal text of a numeric (any size, either sign; `null`: 0) in integer cents; digits past the second decimal are dropped. */
export function decimalToCents(text: string | null | undefined): bigint {
  if (!text) return 0n;
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const cents = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -cents : cents;
}

/** Cents as the APIs render money: a JSON number with at most 2 decimals, made from its decimal text. */
export function centsToNumber(cents: bigint): number {
  const abs = cents < 0n ? -cents : cents;
  return Number(`${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`);
}
