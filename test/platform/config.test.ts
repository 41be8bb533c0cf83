// Configuration: defaults, coercion of environment strings, and failing fast with a message
// that names every bad variable. loadConfig(undefined) reads process.env, so every test
// passes its own object.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';

const SECRET = 'a-production-secret-that-is-long-enough-42';

/** The ConfigError loadConfig throws for `env`. */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    assert.equal(err.name, 'ConfigError');
    return err;
  }
  assert.fail(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

describe('defaults', () => {
  const c = loadConfig({});

  test('listen address 127.0.0.1:3000', () => {
    assert.equal(c.PORT, 3000);
    assert.equal(c.HOST, '127.0.0.1');
  });

  test('both services', () => {
    assert.equal(c.SERVICES, 'admin,timeclock');
    assert.deepEqual([...c.services].sort(), ['admin', 'timeclock']);
  });

  test('captcha on, development, info logging, UTC display times', () => {
    assert.equal(c.CAPTCHA_ENABLED, true);
    assert.equal(c.NODE_ENV, 'development');
    assert.equal(c.LOG_LEVEL, 'info');
    assert.equal(c.DISPLAY_TIMEZONE, 'UTC');
  });

  test('embedded database and in-process cache; generated secrets', () => {
    assert.equal(c.DATABASE_URL, undefined);
    assert.equal(c.REDIS_URL, undefined);
    assert.equal(c.JWT_SECRET, undefined);
    assert.equal(c.ADMIN_PASSWORD, undefined);
    assert.equal(c.MANAGER_PASSWORD, undefined);
    assert.equal(c.ADMIN_USERNAME, 'admin');
    assert.equal(c.MANAGER_USERNAME, 'manager');
  });

  test('DATA_DIR ./data resolved to an absolute dataDir', () => {
    assert.equal(c.DATA_DIR, './data');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.ok(path.isAbsolute(c.dataDir));
  });

  test('limits: 1 MiB bodies, 2 h admin tokens, no protected administrators besides the super administrator', () => {
    assert.equal(c.BODY_LIMIT, 1_048_576);
    assert.equal(c.ADMIN_TOKEN_TTL, 7200);
    assert.equal(c.protectedAdmins.size, 0);
  });
});

describe('coercion', () => {
  test('integers from strings, surrounding blanks ignored', () => {
    const c = loadConfig({ PORT: '8080', BODY_LIMIT: ' 2048 ', DB_POOL_MAX: '3' });
    assert.equal(c.PORT, 8080);
    assert.equal(c.BODY_LIMIT, 2048);
    assert.equal(c.DB_POOL_MAX, 3);
  });

  test('PORT 0 is accepted (pick a free port)', () => {
    assert.equal(loadConfig({ PORT: '0' }).PORT, 0);
  });

  test('booleans from true/false, 1/0, yes/no in any case', () => {
    for (const v of ['true', 'TRUE', '1', 'yes', 'Yes']) assert.equal(loadConfig({ CAPTCHA_ENABLED: v }).CAPTCHA_ENABLED, true, v);
    for (const v of ['false', 'False', '0', 'no', 'NO']) assert.equal(loadConfig({ CAPTCHA_ENABLED: v }).CAPTCHA_ENABLED, false, v);
  });

  test('strings are trimmed', () => {
    const c = loadConfig({ HOST: ' 0.0.0.0 ', LOG_LEVEL: ' debug ' });
    assert.equal(c.HOST, '0.0.0.0');
    assert.equal(c.LOG_LEVEL, 'debug');
  });

  test('SERVICES selects one service or both in either order', () => {
    assert.deepEqual([...loadConfig({ SERVICES: 'admin' }).services], ['admin']);
    assert.deepEqual([...loadConfig({ SERVICES: 'timeclock' }).services], ['timeclock']);
    assert.deepEqual([...loadConfig({ SERVICES: 'timeclock,admin' }).services].sort(), ['admin', 'timeclock']);
  });

  test('an IANA time zone is accepted', () => {
    assert.equal(loadConfig({ DISPLAY_TIMEZONE: 'Asia/Shanghai' }).DISPLAY_TIMEZONE, 'Asia/Shanghai');
  });
});

describe('empty strings count as unset', () => {
  test('numbers, booleans and strings fall back to their defaults', () => {
    const c = loadConfig({ PORT: '', CAPTCHA_ENABLED: '', HOST: '   ', LOG_LEVEL: '', SERVICES: '' });
    assert.equal(c.PORT, 3000);
    assert.equal(c.CAPTCHA_ENABLED, true);
    assert.equal(c.HOST, '127.0.0.1');
    assert.equal(c.LOG_LEVEL, 'info');
    assert.equal(c.SERVICES, 'admin,timeclock');
  });

  test('optional settings stay unset instead of failing their minimum length', () => {
    const c = loadConfig({ JWT_SECRET: '', DATABASE_URL: '', REDIS_URL: ' ', ADMIN_PASSWORD: '' });
    assert.equal(c.JWT_SECRET, undefined);
    assert.equal(c.DATABASE_URL, undefined);
    assert.equal(c.REDIS_URL, undefined);
    assert.equal(c.ADMIN_PASSWORD, undefined);
  });

  test('an empty NODE_ENV is development, so production checks do not apply', () => {
    assert.equal(loadConfig({ NODE_ENV: '' }).NODE_ENV, 'development');
  });
});

describe('invalid values', () => {
  const cases: [string, string, RegExp][] = [
    ['PORT', 'abc', /integer/],
    ['PORT', '70000', /65535/],
    ['PORT', '80.5', /integer/],
    ['LOG_LEVEL', 'loud', /one of fatal, error, warn, info, debug, trace, silent/],
    ['SERVICES', 'foo', /pattern/],
    ['SERVICES', 'admin,timeclock,admin', /pattern/],
    ['JWT_SECRET', 'too-short', /32/],
    ['NODE_ENV', 'prod', /one of development, production, test/],
    ['CAPTCHA_ENABLED', 'maybe', /boolean/],
    ['BODY_LIMIT', '10', /1024/],
    ['DISPLAY_TIMEZONE', 'Mars/Base', /IANA/],
  ];
  for (const [key, value, reason] of cases) {
    test(`${key}=${value} throws a ConfigError naming ${key}`, () => {
      const err = configError({ [key]: value });
      assert.match(err.message, /^Invalid configuration:/);
      const line = err.message.split('\n').find((l) => l.trim().startsWith(`${key}=`));
      assert.ok(line, `no line for ${key} in:\n${err.message}`);
      assert.match(line, reason);
    });
  }

  test('several bad schema values are all named at once', () => {
    const err = configError({ PORT: 'abc', LOG_LEVEL: 'loud', SERVICES: 'foo', JWT_SECRET: 'short' });
    for (const key of ['PORT', 'LOG_LEVEL', 'SERVICES', 'JWT_SECRET']) assert.match(err.message, new RegExp(`^  ${key}=`, 'm'), key);
    assert.equal(err.message.split('\n').length, 5, err.message);
  });

  // The schema says loadConfig "throws ConfigError naming every bad variable": the time
  // zone must be reported together with the schema failures, not only once they are fixed.
  test('every bad variable is named at once, DISPLAY_TIMEZONE included', () => {
    const err = configError({ PORT: 'abc', LOG_LEVEL: 'loud', SERVICES: 'foo', JWT_SECRET: 'short', DISPLAY_TIMEZONE: 'Mars/Base' });
    for (const key of ['PORT', 'LOG_LEVEL', 'SERVICES', 'JWT_SECRET', 'DISPLAY_TIMEZONE']) {
      assert.match(err.message, new RegExp(`^  ${key}[=:]`, 'm'), `${key} missing from:\n${err.message}`);
    }
  });

  // DESIGN §6: secrets are never logged. The start-up failure goes to the log, so it names
  // the variable and the rule without echoing the rejected secret.
  test('a rejected secret is named without its value', () => {
    const err = configError({ JWT_SECRET: 'my-real-but-short-secret', ADMIN_PASSWORD: 'pw1', MANAGER_PASSWORD: 'pw2' });
    for (const key of ['JWT_SECRET', 'ADMIN_PASSWORD', 'MANAGER_PASSWORD']) assert.match(err.message, new RegExp(`^  ${key}`, 'm'), key);
    assert.doesNotMatch(err.message, /my-real-but-short-secret/);
    assert.doesNotMatch(err.message, /pw1|pw2/);
  });
});

describe('production', () => {
  test('without JWT_SECRET it throws naming JWT_SECRET', () => {
    const err = configError({ NODE_ENV: 'production' });
    assert.match(err.message, /JWT_SECRET: required in production/);
  });

  test('with CAPTCHA_ENABLED=false it throws naming CAPTCHA_ENABLED', () => {
    const err = configError({ NODE_ENV: 'production', JWT_SECRET: SECRET, CAPTCHA_ENABLED: 'false' });
    assert.match(err.message, /CAPTCHA_ENABLED=false: not allowed in production/);
    assert.doesNotMatch(err.message, /JWT_SECRET/);
  });

  test('both problems are named together', () => {
    const err = configError({ NODE_ENV: 'production', CAPTCHA_ENABLED: '0' });
    assert.match(err.message, /JWT_SECRET/);
    assert.match(err.message, /CAPTCHA_ENABLED/);
  });

  test('with a secret and the captcha on it loads', () => {
    const c = loadConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET });
    assert.equal(c.NODE_ENV, 'production');
    assert.equal(c.JWT_SECRET, SECRET);
    assert.equal(c.CAPTCHA_ENABLED, true);
  });

  test('test and development allow the captcha off and no secret', () => {
    assert.equal(loadConfig({ NODE_ENV: 'test', CAPTCHA_ENABLED: 'false' }).CAPTCHA_ENABLED, false);
    assert.equal(loadConfig({ NODE_ENV: 'development', CAPTCHA_ENABLED: 'false' }).CAPTCHA_ENABLED, false);
  });
});

describe('PROTECTED_ADMINS', () => {
  test('parsed into a lower-cased set, blanks and empty items dropped', () => {
    const c = loadConfig({ PROTECTED_ADMINS: ' Alice, BOB ,,carol,alice ' });
    assert.ok(c.protectedAdmins instanceof Set);
    assert.deepEqual([...c.protectedAdmins].sort(), ['alice', 'bob', 'carol']);
    assert.equal(c.protectedAdmins.has('Alice'), false);
  });

  test('unset gives an empty set', () => {
    assert.equal(loadConfig({ PROTECTED_ADMINS: '' }).protectedAdmins.size, 0);
  });
});

describe('file storage', () => {
  const S3 = { STORAGE_DRIVER: 's3', S3_BUCKET: 'fieldops-files' };

  test('the local disk by default; the S3 settings their defaults', () => {
    const c = loadConfig({});
    assert.equal(c.STORAGE_DRIVER, 'local');
    assert.equal(c.S3_REGION, 'us-east-1');
    assert.equal(c.S3_FORCE_PATH_STYLE, false);
    assert.equal(c.s3Prefix, '');
    for (const key of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PUBLIC_ENDPOINT'] as const) assert.equal(c[key], undefined, key);
  });

  test('s3 with a bucket, an endpoint, keys and a prefix (given with or without its last slash)', () => {
    const c = loadConfig({ ...S3, S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'secret-key', S3_FORCE_PATH_STYLE: 'true', S3_PREFIX: 'fieldops/prod' });
    assert.equal(c.STORAGE_DRIVER, 's3');
    assert.equal(c.S3_FORCE_PATH_STYLE, true);
    assert.equal(c.s3Prefix, 'fieldops/prod/');
    assert.equal(loadConfig({ ...S3, S3_PREFIX: 'fieldops/' }).s3Prefix, 'fieldops/');
    // Neither key: the AWS SDK's own chain (an instance role).
    assert.equal(loadConfig(S3).S3_ACCESS_KEY_ID, undefined);
  });

  test('STORAGE_DRIVER=s3 without a bucket is refused, naming S3_BUCKET', () => {
    assert.match(configError({ STORAGE_DRIVER: 's3' }).message, /^ {2}S3_BUCKET=undefined: required with STORAGE_DRIVER=s3$/m);
    assert.match(configError({ STORAGE_DRIVER: 'minio' }).message, /STORAGE_DRIVER="minio": must be one of local, s3/);
  });

  const cases: [Record<string, string>, string, RegExp][] = [
    [{ S3_BUCKET: 'Files_2024' }, 'S3_BUCKET', /not a bucket name/],
    [{ S3_BUCKET: 'ab' }, 'S3_BUCKET', /not a bucket name/],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT', /not an http\(s\) URL/],
    [{ S3_ENDPOINT: 'http://user:pw@127.0.0.1:9000' }, 'S3_ENDPOINT', /without credentials/],
    [{ S3_PUBLIC_ENDPOINT: 'ftp://files.example.com' }, 'S3_PUBLIC_ENDPOINT', /not an http\(s\) URL/],
    [{ S3_ACCESS_KEY_ID: 'AKID' }, 'S3_SECRET_ACCESS_KEY', /together, or neither/],
    [{ S3_SECRET_ACCESS_KEY: 'secret-key' }, 'S3_ACCESS_KEY_ID', /together, or neither/],
    [{ S3_PREFIX: '/fieldops' }, 'S3_PREFIX', /not a folder path/],
    [{ S3_PREFIX: 'a/../b' }, 'S3_PREFIX', /not a folder path/],
    [{ S3_PREFIX: 'a//b' }, 'S3_PREFIX', /not a folder path/],
  ];
  for (const [env, key, reason] of cases) {
    test(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} is refused, naming ${key}`, () => {
      const line = configError({ ...S3, ...env }).message.split('\n').find((l) => l.trim().startsWith(`${key}=`));
      assert.ok(line, `no line for ${key}`);
      assert.match(line, reason);
    });
  }

  test('the secret key is never shown', () => {
    const err = configError({ ...S3, S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-secret', S3_BUCKET: 'BAD' });
    assert.match(err.message, /S3_ACCESS_KEY_ID=undefined: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together/);
    assert.match(err.message, /S3_BUCKET="BAD": not a bucket name/);
    assert.doesNotMatch(err.message, /wJalrXUtnFEMI/);
    assert.match(configError({ ...S3, S3_ACCESS_KEY_ID: 'AKID' }).message, /S3_SECRET_ACCESS_KEY=\[redacted\]: set/);
  });
});
