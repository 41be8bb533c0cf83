// Secrets inside a payment method's `config` (API keys, merchant secrets, private keys…):
// masked in every reply and, through the request body, in the operation log. A masked value
// sent back unchanged on update keeps the stored secret, so a client can edit a config it
// only ever saw masked.
import { InvalidInput } from '../../../platform/http/errors.ts';
import { isSecretFieldName, normalisedKey } from '../../../platform/secret-fields.ts';
import { msg } from '../../../platform/i18n.ts';

export const SECRET_MASK = '******';

/** Name parts that make a config key secret, beyond the log redaction's own list. */
const SECRET_PARTS = /key|secret|passw|passphrase|pwd|token|private|credential|signature|salt|cert/;

/** Whether a `config` key holds a secret (`api_key`, `appSecret`, `merchant-private-key`, `token`, …). */
export function isSecretConfigKey(key: string): boolean {
  return isSecretFieldName(key) || SECRET_PARTS.test(normalisedKey(key));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `value` with the value of every secret key, at any depth, replaced by the mask. */
export function maskConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskConfig);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretConfigKey(k) && v !== null && v !== '' ? SECRET_MASK : maskConfig(v);
  }
  return out;
}

/**
 * The config to store from one sent by a client: where a secret key carries the mask, the
 * stored value at the same place is kept; a mask with nothing stored behind it is refused.
 */
export function unmaskConfig(sent: unknown, stored: unknown, path = 'config'): unknown {
  if (Array.isArray(sent)) return sent.map((v, i) => unmaskConfig(v, Array.isArray(stored) ? stored[i] : undefined, `${path}[${i}]`));
  if (!isPlainObject(sent)) return sent;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sent)) {
    const before = isPlainObject(stored) ? stored[k] : undefined;
    if (v === SECRET_MASK && isSecretConfigKey(k)) {
      if (before === undefined) throw new InvalidInput(msg('admin.paymentMethods.maskButNoValue', { path, k, SECRET_MASK }), `${path}.${k}`);
      out[k] = before;
    } else {
      out[k] = unmaskConfig(v, before, `${path}.${k}`);
    }
  }
  return out;
}
