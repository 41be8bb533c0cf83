// Which field names hold secrets, whatever their spelling (old_password, oldPassword,
// OLD-PASSWORD): the log redaction censors their values and the payment methods mask them.

/**
 * Normalised key names (lower case, no `_`/`-`) that are always secret. Not `code`: it names
 * dictionaries and payment methods, the very thing their audit rows must show; the routes whose
 * `code` is an authenticator code say so in their `secretFields`.
 */
const SECRET_KEYS = new Set([
  'password', 'oldpassword', 'newpassword', 'passwordconfirmation', 'passwordhash', 'passwd', 'pwd',
  'token', 'accesstoken', 'refreshtoken', 'idtoken', 'secret', 'clientsecret', 'appsecret', 'apisecret',
  'totpsecret', 'jwtsecret', 'googlecode', 'captchacode', 'otp', 'recoverycode', 'recoverycodes', 'authorization', 'cookie', 'setcookie',
  'apikey', 'appkey', 'privatekey', 'secretkey', 'merchantkey', 'signkey', 'key', 'signature', 'salt', 'cert', 'certificate',
  'databaseurl', 'redisurl', 'adminpassword', 'managerpassword', 'xwsticket',
]);

/** Parts that make any key secret: payment-method `config` secrets come in many names. */
const SECRET_PARTS = /password|passwd|secret|privatekey|apikey|token$|credential/;

/** `key` lower-cased without `_`, `-`, `.` and white space: the form the secret lists match. */
export const normalisedKey = (key: string) => key.toLowerCase().replace(/[_\-\s.]/g, '');

/** Whether a field of this name holds a secret. */
export function isSecretFieldName(key: string): boolean {
  const k = normalisedKey(key);
  return SECRET_KEYS.has(k) || SECRET_PARTS.test(k);
}
