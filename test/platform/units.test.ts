// Pure platform helpers: locale choice and message rendering, display times, time ranges,
// `order_by` schemas, LIKE escaping, validation messages and the password hashing limit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifySchemaValidationError } from 'fastify';
import pino from 'pino';
import { Type } from 'typebox';
import { concurrencyLimit, hashPassword, verifyPassword } from '../../src/platform/auth/password.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { contains, escapeLike } from '../../src/platform/db/like.ts';
import { InvalidInput } from '../../src/platform/http/errors.ts';
import { OrderByQuery, PagingQuery, offsetOf, parseOrderBy, parseTimeRange } from '../../src/platform/http/schemas.ts';
import { describeValidation, validatorCompiler } from '../../src/platform/http/validation.ts';
import { msg, Msg, pickLocale, sentences, translate } from '../../src/platform/i18n.ts';
import { addMonths, formatDisplay, parseDisplay } from '../../src/platform/time.ts';

describe('pickLocale', () => {
  test('absent or empty header gives en-US', () => {
    assert.equal(pickLocale(undefined), 'en-US');
    assert.equal(pickLocale(''), 'en-US');
  });

  test('Chinese tags of any region give zh-CN, case-insensitively', () => {
    for (const h of ['zh-CN', 'zh', 'zh-TW', 'ZH-cn', 'zh-Hans-CN']) assert.equal(pickLocale(h), 'zh-CN', h);
  });

  test('English tags and the wildcard give en-US', () => {
    for (const h of ['en-US', 'en', 'en-GB', '*']) assert.equal(pickLocale(h), 'en-US', h);
  });

  test('unsupported languages are skipped in favour of the next supported one', () => {
    assert.equal(pickLocale('fr-FR, zh-CN;q=0.8'), 'zh-CN');
    assert.equal(pickLocale('fr-FR, de'), 'en-US');
  });

  test('q-values rank the choices; q=0 excludes a language', () => {
    assert.equal(pickLocale('en;q=0.5, zh;q=0.9'), 'zh-CN');
    assert.equal(pickLocale('zh;q=0.4, en;q=0.6'), 'en-US');
    assert.equal(pickLocale('zh;q=0, en'), 'en-US');
    assert.equal(pickLocale('zh-CN;q=0'), 'en-US');
  });

  test('equal q-values keep header order', () => {
    assert.equal(pickLocale('zh-CN, en-US'), 'zh-CN');
    assert.equal(pickLocale('en-US, zh-CN'), 'en-US');
  });

  test('an array of header values is read as one list', () => {
    assert.equal(pickLocale(['fr', 'zh-CN']), 'zh-CN');
  });
});

describe('translate', () => {
  test('renders the chosen locale with its parameters', () => {
    assert.equal(translate('admin.error.LOGIN_LOCKED', 'en-US', { minutes: 15 }), 'Too many failed logins; try again in 15 minutes');
    assert.equal(translate('admin.error.LOGIN_LOCKED', 'zh-CN', { minutes: 15 }), '登录失败次数过多，请 15 分钟后再试');
  });

  test('leaves unknown placeholders alone', () => {
    assert.equal(translate('admin.error.LOGIN_LOCKED', 'en-US', { other: 1 }), 'Too many failed logins; try again in {minutes} minutes');
  });

  test('renders nested messages, lists and sentences in the same language', () => {
    const nested = msg('platform.tree.cannotOwnParent', { noun: msg('noun.menu'), id: 3 });
    assert.equal(translate(nested, 'en-US'), 'menu 3 cannot be its own parent');
    assert.equal(translate(nested, 'zh-CN'), '菜单 3 不能是自己的上级');
    const list = msg('admin.roles.unknownMenuIds', { unknownMenus: [4, 5] });
    assert.equal(translate(list, 'en-US'), 'unknown menu_ids: 4, 5');
    assert.equal(translate(list, 'zh-CN'), '未知的 menu_ids：4、5');
    assert.equal(translate([nested, list], 'en-US'), 'menu 3 cannot be its own parent; unknown menu_ids: 4, 5');
    assert.equal(translate(sentences([nested, list]), 'zh-CN'), '菜单 3 不能是自己的上级；未知的 menu_ids：4、5');
  });

  test('a stored message reads back as the same message; a stored plain string stays as it was', () => {
    const nested = msg('platform.tree.cannotOwnParent', { noun: msg('noun.menu'), id: 3 });
    const back = Msg.fromJSON(JSON.parse(JSON.stringify(nested)));
    assert.equal(translate(back!, 'zh-CN'), translate(nested, 'zh-CN'));
    assert.equal(translate(Msg.fromJSON('as it was')!, 'zh-CN'), 'as it was');
    assert.equal(Msg.fromJSON({ key: 'no.such.key' }), undefined);
  });
});

describe('formatDisplay', () => {
  test('null and undefined give null', () => {
    assert.equal(formatDisplay(null, 'UTC'), null);
    assert.equal(formatDisplay(undefined, 'UTC'), null);
  });

  test('formats YYYY-MM-DD HH:mm:ss in UTC, midnight as 00', () => {
    assert.equal(formatDisplay(new Date('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01 00:00:00');
    assert.equal(formatDisplay(new Date('2026-12-31T23:59:59.999Z'), 'UTC'), '2026-12-31 23:59:59');
    assert.equal(formatDisplay(new Date('2026-03-05T07:08:09Z'), 'UTC'), '2026-03-05 07:08:09');
  });

  test('applies the zone offset (Asia/Shanghai is UTC+8, crossing the date line of the day)', () => {
    assert.equal(formatDisplay(new Date('2026-01-01T16:00:00Z'), 'Asia/Shanghai'), '2026-01-02 00:00:00');
    assert.equal(formatDisplay(new Date('2025-12-31T20:30:00Z'), 'Asia/Shanghai'), '2026-01-01 04:30:00');
  });

  test('follows daylight saving time (America/New_York)', () => {
    assert.equal(formatDisplay(new Date('2026-01-15T12:00:00Z'), 'America/New_York'), '2026-01-15 07:00:00');
    assert.equal(formatDisplay(new Date('2026-07-15T12:00:00Z'), 'America/New_York'), '2026-07-15 08:00:00');
  });

  test('agrees with Intl every minute across offset changes, odd offsets and historical zones', () => {
    const formats = new Map<string, Intl.DateTimeFormat>();
    const intl = (d: Date, tz: string) => {
      if (!formats.has(tz)) formats.set(tz, new Intl.DateTimeFormat('en-CA', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }));
      const p = Object.fromEntries(formats.get(tz)!.formatToParts(d).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
    };
    const starts = ['2026-03-07T00:00:00Z', '2026-10-24T00:00:00Z', '2026-04-04T00:00:00Z', '1900-12-30T00:00:00Z', '1927-12-31T00:00:00Z'];
    for (const tz of ['America/New_York', 'Europe/Paris', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kathmandu', 'Asia/Shanghai', 'Europe/Dublin']) {
      for (const start of starts) {
        // Two days in 59.999 s steps: every quarter of an hour, at varying seconds.
        for (let ms = Date.parse(start); ms < Date.parse(start) + 2 * 86_400_000; ms += 59_999) {
          const d = new Date(ms);
          assert.equal(formatDisplay(d, tz), intl(d, tz), `${d.toISOString()} in ${tz}`);
        }
      }
    }
  });
});

describe('parseDisplay', () => {
  test('parses a UTC wall-clock time', () => {
    assert.equal(parseDisplay('2026-01-31 23:59:59', 'UTC')?.toISOString(), '2026-01-31T23:59:59.000Z');
  });

  test('parses a wall-clock time of Asia/Shanghai as UTC+8', () => {
    assert.equal(parseDisplay('2026-01-01 08:00:00', 'Asia/Shanghai')?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(parseDisplay('2026-01-01 00:00:00', 'Asia/Shanghai')?.toISOString(), '2025-12-31T16:00:00.000Z');
  });

  test('parses wall-clock times on both sides of daylight saving (America/New_York)', () => {
    assert.equal(parseDisplay('2026-01-15 07:00:00', 'America/New_York')?.toISOString(), '2026-01-15T12:00:00.000Z');
    assert.equal(parseDisplay('2026-07-15 08:00:00', 'America/New_York')?.toISOString(), '2026-07-15T12:00:00.000Z');
  });

  test('round-trips with formatDisplay', () => {
    for (const tz of ['UTC', 'Asia/Shanghai', 'America/New_York', 'Asia/Kolkata']) {
      for (const text of ['2026-01-01 00:00:00', '2026-06-30 12:34:56', '2024-02-29 23:59:59', '2026-12-31 23:59:59']) {
        const d = parseDisplay(text, tz);
        assert.ok(d, `${text} in ${tz}`);
        assert.equal(formatDisplay(d, tz), text, `${text} in ${tz}`);
      }
    }
  });

  test('impossible calendar dates are null (2026-02-30, 2025-02-29, 2026-04-31, month 13, day 0)', () => {
    for (const text of ['2026-02-30 00:00:00', '2025-02-29 12:00:00', '2026-04-31 00:00:00', '2026-13-01 00:00:00', '2026-01-00 00:00:00']) {
      assert.equal(parseDisplay(text, 'UTC'), null, text);
      assert.equal(parseDisplay(text, 'Asia/Shanghai'), null, text);
    }
  });

  test('impossible clock times are null (24:00:00, minute 60, second 60)', () => {
    for (const text of ['2026-02-28 24:00:00', '2026-02-28 23:60:00', '2026-02-28 23:59:60']) {
      assert.equal(parseDisplay(text, 'UTC'), null, text);
    }
  });

  test('other formats are null', () => {
    for (const text of ['2026-1-01 00:00:00', '2026-01-01T00:00:00', '2026-01-01 00:00', '2026-01-01', '2026-01-01 00:00:00Z', ' 2026-01-01 00:00:00', '']) {
      assert.equal(parseDisplay(text, 'UTC'), null, JSON.stringify(text));
    }
  });

  test('a leap day is valid in a leap year', () => {
    assert.equal(parseDisplay('2024-02-29 12:00:00', 'UTC')?.toISOString(), '2024-02-29T12:00:00.000Z');
  });

  test('an ambiguous fall-back time (America/New_York 2026-11-01 01:30) resolves to a time that displays as given', () => {
    const d = parseDisplay('2026-11-01 01:30:00', 'America/New_York');
    assert.ok(d);
    assert.equal(formatDisplay(d, 'America/New_York'), '2026-11-01 01:30:00');
  });

  // America/New_York skips 02:00-03:00 on 2026-03-08. A skipped wall time is "not a real
  // time" (null per the doc comment) or, at most, the instant an hour later (03:30 EDT, as
  // Temporal's "compatible" rule does); never an earlier, different wall time.
  test('a wall time skipped by daylight saving is refused or moved forward, never backward', () => {
    const d = parseDisplay('2026-03-08 02:30:00', 'America/New_York');
    assert.ok(d === null || formatDisplay(d, 'America/New_York') === '2026-03-08 03:30:00', `got ${d?.toISOString()} = ${formatDisplay(d, 'America/New_York')}`);
  });
});

describe('addMonths', () => {
  test('adds calendar months and clamps the day to the month end', () => {
    assert.equal(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString(), '2026-02-28T10:00:00.000Z');
    assert.equal(addMonths(new Date('2024-01-31T10:00:00Z'), 1).toISOString(), '2024-02-29T10:00:00.000Z');
    assert.equal(addMonths(new Date('2026-11-15T00:00:00Z'), 3).toISOString(), '2027-02-15T00:00:00.000Z');
  });
});

describe('parseTimeRange', () => {
  const invalid = (fn: () => unknown, field: string, re: RegExp) =>
    assert.throws(fn, (err: unknown) => {
      assert.ok(err instanceof InvalidInput, String(err));
      assert.equal(err.field, field);
      assert.match(err.message, re);
      return true;
    });

  test('no bounds give no instants', () => {
    assert.deepEqual(parseTimeRange({}, 'UTC', 3), { from: undefined, to: undefined });
  });

  test('one bound alone is accepted', () => {
    const r = parseTimeRange({ start_time: '2026-01-01 00:00:00' }, 'UTC', 3);
    assert.equal(r.from?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(r.to, undefined);
    const r2 = parseTimeRange({ end_time: '2026-01-01 00:00:00' }, 'UTC', 3);
    assert.equal(r2.from, undefined);
    assert.equal(r2.to?.toISOString(), '2026-01-01T00:00:00.000Z');
  });

  test('parses both bounds in the display zone', () => {
    const r = parseTimeRange({ start_time: '2026-01-01 08:00:00', end_time: '2026-01-02 08:00:00' }, 'Asia/Shanghai', 3);
    assert.equal(r.from?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(r.to?.toISOString(), '2026-01-02T00:00:00.000Z');
  });

  test('equal bounds are accepted', () => {
    const r = parseTimeRange({ start_time: '2026-01-01 00:00:00', end_time: '2026-01-01 00:00:00' }, 'UTC');
    assert.equal(r.from?.getTime(), r.to?.getTime());
  });

  test('a reversed range is refused naming start_time', () => {
    invalid(() => parseTimeRange({ start_time: '2026-01-02 00:00:00', end_time: '2026-01-01 23:59:59' }, 'UTC', 3), 'start_time', /after end_time/);
  });

  test('an impossible date is refused naming its field', () => {
    invalid(() => parseTimeRange({ start_time: '2026-02-30 00:00:00' }, 'UTC'), 'start_time', /start_time is not a valid/);
    invalid(() => parseTimeRange({ start_time: '2026-02-01 00:00:00', end_time: '2026-02-30 00:00:00' }, 'UTC'), 'end_time', /end_time is not a valid/);
    invalid(() => parseTimeRange({ end_time: 'yesterday' }, 'UTC'), 'end_time', /end_time is not a valid/);
  });

  test('exactly N months is accepted; one second more is refused naming end_time', () => {
    const ok = parseTimeRange({ start_time: '2026-01-01 00:00:00', end_time: '2026-04-01 00:00:00' }, 'UTC', 3);
    assert.equal(ok.to?.toISOString(), '2026-04-01T00:00:00.000Z');
    invalid(() => parseTimeRange({ start_time: '2026-01-01 00:00:00', end_time: '2026-04-01 00:00:01' }, 'UTC', 3), 'end_time', /exceed 3 months/);
    invalid(() => parseTimeRange({ start_time: '2026-01-01 00:00:00', end_time: '2026-12-31 00:00:00' }, 'UTC', 3), 'end_time', /exceed 3 months/);
  });

  test('without maxMonths any forward range is accepted', () => {
    const r = parseTimeRange({ start_time: '2020-01-01 00:00:00', end_time: '2026-01-01 00:00:00' }, 'UTC');
    assert.ok(r.from && r.to && r.from < r.to);
  });

  test('a range over N months is refused (UTC and Asia/Shanghai)', () => {
    for (const tz of ['UTC', 'Asia/Shanghai']) {
      invalid(() => parseTimeRange({ start_time: '2026-03-01 00:00:00', end_time: '2026-06-01 00:00:01' }, tz, 3), 'end_time', /exceed 3 months/);
      invalid(() => parseTimeRange({ start_time: '2026-03-01 00:00:00', end_time: '2026-04-01 00:00:01' }, tz, 1), 'end_time', /exceed 1 months/);
    }
  });

  // Months are calendar months of the display zone: 1 March to 31 May is within three
  // months wherever the server is, 1 March to 31 March within one, and 1 March to
  // 1 June 00:00:01 is over three months in every zone.
  test('the month limit counts calendar months in the display zone (Asia/Shanghai, America/New_York)', () => {
    for (const tz of ['UTC', 'Asia/Shanghai', 'America/New_York']) {
      assert.doesNotThrow(() => parseTimeRange({ start_time: '2026-03-01 00:00:00', end_time: '2026-05-31 23:59:59' }, tz, 3), tz);
      assert.doesNotThrow(() => parseTimeRange({ start_time: '2026-03-01 00:00:00', end_time: '2026-03-31 00:00:00' }, tz, 1), tz);
      invalid(() => parseTimeRange({ start_time: '2026-03-01 00:00:00', end_time: '2026-06-01 00:00:01' }, tz, 3), 'end_time', /exceed 3 months/);
    }
  });
});

describe('OrderByQuery and parseOrderBy', () => {
  const schema = Type.Object({ ...PagingQuery, order_by: OrderByQuery(['id', 'created_at'] as const, 'id:desc') });
  const validate = validatorCompiler({ schema, httpPart: 'querystring', method: 'GET', url: '/x' }) as unknown as ((data: unknown) => boolean) & {
    errors?: FastifySchemaValidationError[] | null;
  };

  test('the schema lists each field in both directions and the default', () => {
    const s = OrderByQuery(['id', 'created_at'] as const, 'created_at:asc') as unknown as { enum: string[]; default: string };
    assert.deepEqual(s.enum, ['id:asc', 'id:desc', 'created_at:asc', 'created_at:desc']);
    assert.equal(s.default, 'created_at:asc');
  });

  test('defaults fill page, page_size and order_by; strings are coerced', () => {
    const q: Record<string, unknown> = { page: '3' };
    assert.equal(validate(q), true);
    assert.deepEqual(q, { page: 3, page_size: 10, order_by: 'id:desc' });
    assert.equal(offsetOf(q as { page: number; page_size: number }), 20);
  });

  test('allowed values pass', () => {
    for (const v of ['id:asc', 'id:desc', 'created_at:asc', 'created_at:desc']) assert.equal(validate({ order_by: v }), true, v);
  });

  test('unknown fields, directions and shapes are refused with a message listing the choices', () => {
    for (const v of ['name:asc', 'id:up', 'id', 'ID:ASC', 'id:asc;drop table x', '']) {
      assert.equal(validate({ order_by: v }), false, v);
      assert.equal(describeValidation(validate.errors!, 'querystring'), 'querystring.order_by must be one of: id:asc, id:desc, created_at:asc, created_at:desc');
    }
  });

  test('page and page_size out of range are refused, not clamped', () => {
    const cases: [Record<string, string>, string][] = [
      [{ page: '0' }, 'querystring.page must be >= 1'],
      [{ page_size: '0' }, 'querystring.page_size must be >= 1'],
      [{ page_size: '101' }, 'querystring.page_size must be <= 100'],
      [{ page: 'abc' }, 'querystring.page must be integer'],
    ];
    for (const [q, message] of cases) {
      assert.equal(validate(q), false, JSON.stringify(q));
      assert.equal(describeValidation(validate.errors!, 'querystring'), message);
    }
  });

  test('parseOrderBy splits field and direction', () => {
    assert.deepEqual(parseOrderBy('created_at:desc'), { field: 'created_at', direction: 'desc' });
    assert.deepEqual(parseOrderBy('id:asc'), { field: 'id', direction: 'asc' });
  });
});

describe('describeValidation (body, strict)', () => {
  const schema = Type.Object(
    { a: Type.Object({ x: Type.Integer() }, { additionalProperties: false }), n: Type.String({ minLength: 2 }) },
    { additionalProperties: false },
  );
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/x' }) as unknown as ((data: unknown) => boolean) & {
    errors?: FastifySchemaValidationError[] | null;
  };
  const cases: [unknown, string][] = [
    [{ a: { x: '1' }, n: 'ab' }, 'body.a.x must be integer'],
    [{ a: { x: 1, y: 2 }, n: 'ab' }, 'body.a.y is not an accepted field'],
    [{ a: {}, n: 'ab' }, 'body.a.x is required'],
    [{ a: { x: 1 } }, 'body.n is required'],
    [{ a: { x: 1 }, n: 'a' }, 'body.n must NOT have fewer than 2 characters'],
    [{ a: { x: 1 }, n: 'ab', z: 1 }, 'body.z is not an accepted field'],
  ];
  for (const [data, message] of cases) {
    test(`${JSON.stringify(data)} -> ${message}`, () => {
      assert.equal(validate(data), false);
      assert.equal(describeValidation(validate.errors!, 'body'), message);
    });
  }

  test('bodies are not coerced: "12" is not an integer', () => {
    assert.equal(validate({ a: { x: '12' }, n: 'ab' }), false);
    assert.equal(validate({ a: { x: 12 }, n: 'ab' }), true);
  });

  test('several failures are joined with "; "', () => {
    const errors = [
      { keyword: 'required', instancePath: '', params: { missingProperty: 'a' }, message: '' },
      { keyword: 'type', instancePath: '/n', params: { type: 'string' }, message: '' },
    ] as unknown as FastifySchemaValidationError[];
    assert.equal(describeValidation(errors, 'body'), 'body.a is required; body.n must be string');
  });
});

describe('escapeLike', () => {
  test('escapes %, _ and the escape character itself', () => {
    assert.equal(escapeLike('plain'), 'plain');
    assert.equal(escapeLike('50%'), '50\\%');
    assert.equal(escapeLike('a_b'), 'a\\_b');
    assert.equal(escapeLike('c:\\dir'), 'c:\\\\dir');
    assert.equal(escapeLike('%_\\'), '\\%\\_\\\\');
    assert.equal(contains('a%b'), '%a\\%b%');
  });

  describe('against a real database', () => {
    let db: Database;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'fieldops-like-'));
      db = await openDatabase({
        url: process.env.TEST_DATABASE_URL,
        dataDir: dir,
        poolMax: 1,
        logger: pino({ level: 'silent' }),
        inMemory: true,
      });
    });
    after(async () => {
      await db?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const like = async (value: string, term: string) => {
      const [row] = await db.query<{ m: boolean }>('SELECT $1::text LIKE $2::text AS m', [value, contains(term)]);
      return row!.m;
    };

    test('wildcards in the term match only themselves', async () => {
      assert.equal(await like('100% cotton', '0%'), true);
      assert.equal(await like('1000 cotton', '0%'), false);
      assert.equal(await like('user_1', 'r_1'), true);
      assert.equal(await like('userX1', 'r_1'), false);
      assert.equal(await like('c:\\dir', ':\\d'), true);
      assert.equal(await like('c:dir', ':\\d'), false);
      assert.equal(await like('anything', '%'), false);
      assert.equal(await like('a%b', '%'), true);
    });
  });
});

describe('concurrencyLimit', () => {
  test('runs at most `slots` tasks at once, in arrival order, and a failure frees its slot', async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => Promise.withResolvers<void>());
    const results = gates.map((gate, i) =>
      limit(async () => {
        started.push(i);
        running += 1;
        peak = Math.max(peak, running);
        await gate.promise;
        running -= 1;
        if (i === 1) throw new Error('task 1 failed');
        return i;
      }),
    );
    const outcomes = Promise.allSettled(results);
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    assert.deepEqual(started, [0, 1]);
    gates[1]!.resolve();
    await settle();
    assert.deepEqual(started, [0, 1, 2], 'the failed task handed its slot on');
    for (const gate of gates) gate.resolve();
    const settled = await outcomes;
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(peak, 2);
    assert.deepEqual(settled.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')), [0, 'rejected', 2, 3, 4]);
  });

  test('more hashes and verifications at once than there are slots all complete correctly', async () => {
    const passwords = ['a', 'b', 'c', 'd', 'e'].map((p) => `pw-${p}`);
    const hashes = await Promise.all(passwords.map((p) => hashPassword(p)));
    const checks = await Promise.all(hashes.map((h, i) => verifyPassword(h, passwords[i]!)));
    assert.deepEqual(checks, [true, true, true, true, true]);
    assert.equal(await verifyPassword(hashes[0]!, 'pw-b'), false);
  });
});

// Raw statements with parameters are prepared once (postgres.js on PostgreSQL, our own named
// statements on PGlite): repeated runs keep their types, errors leave the statement usable,
// and on PGlite a raw query never runs inside another caller's open transaction.
describe('raw parameterised statements', () => {
  let db: Database;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fieldops-raw-'));
    db = await openDatabase({ url: process.env.TEST_DATABASE_URL, dataDir: dir, poolMax: 2, logger: pino({ level: 'silent' }), inMemory: true });
    await db.query(`DROP TABLE IF EXISTS public.raw_prepared_test`);
    await db.query(`CREATE TABLE public.raw_prepared_test (id bigint PRIMARY KEY, at timestamptz, doc jsonb, ok boolean, tags text[])`);
  });
  after(async () => {
    await db?.query(`DROP TABLE IF EXISTS public.raw_prepared_test`);
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = `INSERT INTO public.raw_prepared_test (id, at, doc, ok, tags) VALUES ($1, $2, $3::jsonb, $4, $5::text[]) RETURNING id, at, doc, ok, tags`;

  test('the same statement runs again with other values, and the values keep their types', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    for (const id of [1, 2, 3]) {
      const [row] = await db.query<{ id: number; at: Date | string; doc: unknown; ok: boolean; tags: string[] }>(insert, [id, at, JSON.stringify({ n: id }), id % 2 === 1, `{a,b${id}}`]);
      // (timestamptz comes back as a Date from PGlite and as text from postgres.js raw queries)
      assert.equal(new Date(row!.at).getTime(), at.getTime());
      assert.deepEqual({ ...row, at: undefined }, { id, at: undefined, doc: { n: id }, ok: id % 2 === 1, tags: ['a', `b${id}`] });
    }
    const rows = await db.query<{ id: number }>(`SELECT id FROM public.raw_prepared_test WHERE id > $1 ORDER BY id`, [1]);
    assert.deepEqual(rows.map((r) => r.id), [2, 3]);
  });

  test('an error is reported with its SQLSTATE and the statement still works after it', async () => {
    await assert.rejects(db.query(insert, [1, null, null, null, null]), (e: { code?: string }) => e.code === '23505');
    const [row] = await db.query<{ id: number; at: Date | null }>(insert, [4, null, null, null, null]);
    assert.deepEqual({ id: row!.id, at: row!.at }, { id: 4, at: null });
  });

  test('a raw query never sees (or joins) a transaction that has not committed', async () => {
    let committed = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tx = db.transaction(async (t) => {
      await t.query(`INSERT INTO public.raw_prepared_test (id) VALUES ($1)`, [100]);
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outside = db.query<{ n: number }>(`SELECT count(*)::int AS n FROM public.raw_prepared_test WHERE id = $1`, [100]).then(([r]) => ({ n: r!.n, afterCommit: committed }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await tx;
    committed = true;
    const seen = await outside;
    assert.ok(seen.n === 0 || seen.afterCommit, `saw the uncommitted row before the commit: ${JSON.stringify(seen)}`);
  });
});
