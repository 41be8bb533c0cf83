// A payment method's `config` edited as key/value rows: text values as typed, other JSON values
// (numbers, booleans, objects) as JSON text. A secret the server masked (`******`) becomes an
// empty row marked masked: left empty it is sent back as the mask, which keeps the stored value.

export const SECRET_MASK = '******';

export interface ConfigRow {
  key: string;
  value: string;
  /** The stored value is a secret the server masked; empty value = keep it. */
  masked: boolean;
  /** The value is JSON text (number, boolean, object, array, null), not a plain string. */
  json: boolean;
}

export function rowsFromConfig(config: Record<string, unknown> | undefined): ConfigRow[] {
  return Object.entries(config ?? {}).map(([key, v]) =>
    v === SECRET_MASK ? { key, value: '', masked: true, json: false }
      : typeof v === 'string' ? { key, value: v, masked: false, json: false }
        : { key, value: JSON.stringify(v), masked: false, json: true });
}

export type ConfigResult = { ok: true; config: Record<string, unknown> } | { ok: false; problem: 'duplicate' | 'json'; key: string };

/** The config object of the rows (blank keys ignored); a repeated key or bad JSON is a problem. */
export function configFromRows(rows: readonly ConfigRow[]): ConfigResult {
  const config: Record<string, unknown> = {};
  for (const r of rows) {
    const key = r.key.trim();
    if (!key) continue;
    if (Object.hasOwn(config, key)) return { ok: false, problem: 'duplicate', key };
    if (r.masked && r.value === '') config[key] = SECRET_MASK;
    else if (r.json) {
      try {
        config[key] = JSON.parse(r.value);
      } catch {
        return { ok: false, problem: 'json', key };
      }
    } else config[key] = r.value;
  }
  return { ok: true, config };
}

/** The JSON text of a config (masked secrets appear as `******`, which keeps them). */
export const configText = (config: Record<string, unknown>) => JSON.stringify(config, null, 2);

/** A JSON object from the text, or null when it is not one. */
export function parseConfigText(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text.trim() || '{}');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
