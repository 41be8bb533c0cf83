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

/**
 * One node of a config being copied: where its copy goes (`into[at]`, or the result when
 * `into` is undefined), and how it is named in a refusal (built only when one is needed).
 */
interface Pending {
  value: unknown;
  stored: unknown;
  into: Record<string, unknown> | unknown[] | undefined;
  at: string | number;
  parent: Pending | undefined;
}

/** `config.a[2].b` for a node: walked up from the node, so that no path is built unless asked for. */
function pathOf(node: Pending | undefined): string {
  const parts: string[] = [];
  for (let n = node; n?.parent; n = n.parent) parts.push(typeof n.at === 'number' ? `[${n.at}]` : `.${n.at}`);
  return `config${parts.reverse().join('')}`;
}

/**
 * Copies a config in a loop, not by recursion, so that no depth of nesting can overflow the
 * stack (a 3,000-level config must be answered, not crash the request). `leaf` decides, for a
 * key of an object, whether its value is replaced (returns the replacement) or copied further
 * (returns `undefined`).
 */
function copyConfig(
  root: unknown,
  rootStored: unknown,
  leaf: (key: string, value: unknown, stored: unknown, node: Pending) => { value: unknown } | undefined,
): unknown {
  let result: unknown;
  const stack: Pending[] = [{ value: root, stored: rootStored, into: undefined, at: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, stored } = node;
    let copy: unknown = value;
    if (Array.isArray(value)) {
      const out: unknown[] = new Array(value.length);
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], stored: Array.isArray(stored) ? stored[i] : undefined, into: out, at: i, parent: node });
      }
      copy = out;
    } else if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const before = isPlainObject(stored) ? stored[k] : undefined;
        const child: Pending = { value: v, stored: before, into: out, at: k, parent: node };
        const replaced = leaf(k, v, before, child);
        out[k] = replaced?.value; // the key's place, in the sent order
        if (!replaced) stack.push(child);
      }
      copy = out;
    }
    if (node.into === undefined) result = copy;
    else (node.into as Record<string | number, unknown>)[node.at] = copy;
  }
  return result;
}

/** A copy of `value` with the value of every secret key, at any depth, replaced by the mask. */
export function maskConfig(value: unknown): unknown {
  return copyConfig(value, undefined, (k, v) => (isSecretConfigKey(k) && v !== null && v !== '' ? { value: SECRET_MASK } : undefined));
}

/**
 * The config to store from one sent by a client: where a secret key carries the mask, the
 * stored value at the same place is kept; a mask with nothing stored behind it is refused.
 */
export function unmaskConfig(sent: unknown, stored: unknown): unknown {
  return copyConfig(sent, stored, (k, v, before, node) => {
    if (v !== SECRET_MASK || !isSecretConfigKey(k)) return undefined;
    if (before === undefined) {
      const path = pathOf(node.parent);
      throw new InvalidInput(msg('admin.paymentMethods.maskButNoValue', { path, k, SECRET_MASK }), `${path}.${k}`);
    }
    return { value: before };
  });
}
