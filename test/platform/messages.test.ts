// The message catalogues (src/messages/): every key in both languages with the same
// parameters, no English left in the Chinese one, and validation messages that name the field
// and the values a union or an enumeration accepts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifySchemaValidationError } from 'fastify';
import { Type } from 'typebox';
import { enUS } from '../../src/messages/en-US.ts';
import { zhCN } from '../../src/messages/zh-CN.ts';
import { describeValidation, validatorCompiler } from '../../src/platform/http/validation.ts';

const paramsOf = (template: string) => new Set([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));

/** Parameters the English message shows and the Chinese one leaves out on purpose. */
const EN_ONLY: Record<string, string[]> = {
  // The CSV parser's own reason ("Invalid Closing Quote") is English; the line number says where.
  'admin.orders.importNotCsvAt': ['reason'],
};

/**
 * Latin-script words a Chinese message may carry: names of the API (fields, headers, settings,
 * values), file formats and protocols. Identifiers with `_`, a capital inside, a dot or a slash,
 * and words in capitals, are recognised as such without being listed.
 */
const TECHNICAL = new Set([
  'JSON', 'CSV', 'Redis', 'Bearer', 'Webhook', 'WebSocket', 'IPv', 'UTF', 'ISO', 'ASCII', 'multipart', 'form', 'data',
  'application', 'json', 'Content', 'Length', 'Connection', 'Upgrade', 'websocket', 'http', 'https', 'url', 'ip', 'id',
  'from', 'to', 'all', 'true', 'false', 'null', 'file', 'body', 'status', 'paid', 'pending', 'password', 'products', 'amount',
  'price', 'quantity', 'timestamp', 'mm', 'ss', 'Z',
]);

function englishWords(text: string): string[] {
  const stripped = text
    .replace(/\{\w+\}/g, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/[A-Za-z0-9]+(?:[_./:-][A-Za-z0-9]+)+/g, ' ') // snake_case, dotted, paths, a-b, x:y
    .replace(/\b[a-z]+[A-Z]\w*\b/g, ' ') // camelCase
    .replace(/\b[A-Z][A-Z0-9]+\b/g, ' '); // capitals
  return (stripped.match(/[A-Za-z]+/g) ?? []).filter((w) => !TECHNICAL.has(w));
}

describe('message catalogues', () => {
  const keys = Object.keys(enUS);

  test('every key exists in both languages, and no message is empty', () => {
    assert.deepEqual(Object.keys(zhCN).sort(), [...keys].sort());
    for (const k of keys) {
      assert.ok(enUS[k as keyof typeof enUS].length > 0, k);
      assert.ok(zhCN[k as keyof typeof zhCN].length > 0, k);
    }
    assert.ok(keys.length > 300, `${keys.length} keys`);
  });

  test('both languages use the same parameters', () => {
    for (const k of keys) {
      const en = paramsOf(enUS[k as keyof typeof enUS]);
      const zh = paramsOf(zhCN[k as keyof typeof zhCN]);
      for (const p of EN_ONLY[k] ?? []) en.delete(p);
      assert.deepEqual([...zh].sort(), [...en].sort(), k);
    }
  });

  test('no zh-CN message carries untranslated English words', () => {
    const found = keys.map((k) => [k, englishWords(zhCN[k as keyof typeof zhCN])] as const).filter(([, words]) => words.length > 0);
    assert.deepEqual(found, []);
  });

  test('the check itself finds English', () => {
    assert.deepEqual(englishWords('no administrator {id}'), ['no', 'administrator']);
    assert.deepEqual(englishWords('数据不存在: worker not found'), ['worker', 'not', 'found']);
    assert.deepEqual(englishWords('page_size 必须 <= {limit}；传入 "abc"、capturedAt、ORDER_NO、JSON'), []);
  });

  test('the zh-CN messages are Chinese, not copies of the English ones', () => {
    const copied = keys.filter((k) => enUS[k as keyof typeof enUS] === zhCN[k as keyof typeof zhCN] && /[a-z]{3}/.test(enUS[k as keyof typeof enUS].replace(/\{\w+\}/g, '')));
    assert.deepEqual(copied, []);
  });
});

describe('validation messages name the field and what is allowed', () => {
  const validate = (schema: Parameters<typeof validatorCompiler>[0]['schema'], data: unknown, part = 'body') => {
    const v = validatorCompiler({ schema, httpPart: part, method: 'POST', url: '/x' }) as unknown as ((d: unknown) => boolean) & {
      errors?: FastifySchemaValidationError[] | null;
    };
    assert.equal(v(data), false);
    return (locale: 'en-US' | 'zh-CN') => describeValidation(v.errors!, part, locale);
  };

  test('an enumeration lists its values', () => {
    const m = validate(Type.Object({ eventType: Type.Enum(['clock_in', 'clock_out']) }), { eventType: 'lunch' });
    assert.equal(m('en-US'), 'body.eventType must be one of: clock_in, clock_out');
    assert.equal(m('zh-CN'), 'body.eventType 必须是以下之一：clock_in、clock_out');
  });

  test('a union of literals lists its values once each (not "must match a schema in anyOf")', () => {
    const schema = Type.Object({ status: Type.Union([Type.Literal(1), Type.Literal(0), Type.Literal('1'), Type.Literal('0')]) });
    const m = validate(schema, { status: 5 });
    assert.equal(m('en-US'), 'body.status must be one of: 1, 0');
    assert.equal(m('zh-CN'), 'body.status 必须是以下之一：1、0');
  });

  test('a union of a literal and a type names both', () => {
    const schema = Type.Object({ email: Type.Union([Type.Literal(''), Type.String({ format: 'email' })]) });
    const m = validate(schema, { email: 3 });
    assert.equal(m('en-US'), 'body.email must be one of: "", string');
    const nullable = validate(Type.Object({ n: Type.Union([Type.Integer(), Type.Null()]) }), { n: 'x' });
    assert.equal(nullable('en-US'), 'body.n must be one of: integer, null');
    assert.equal(nullable('zh-CN'), 'body.n 必须是以下之一：整数、空值（null）');
  });

  test('bounds, lengths, missing and unknown fields, in both languages', () => {
    const schema = Type.Object({ page: Type.Integer({ minimum: 1 }), name: Type.String({ maxLength: 3 }) }, { additionalProperties: false });
    const cases: [unknown, string, string][] = [
      [{ page: 0, name: 'a' }, 'body.page must be >= 1', 'body.page 必须 >= 1'],
      [{ page: 1, name: 'abcd' }, 'body.name must NOT have more than 3 characters', 'body.name 不能多于 3 个字符'],
      [{ name: 'a' }, 'body.page is required', 'body.page 为必填项'],
      [{ page: 1, name: 'a', x: 1 }, 'body.x is not an accepted field', 'body.x 不是可接受的字段'],
      [{ page: 1.5, name: 'a' }, 'body.page must be integer', 'body.page 必须是整数'],
      [{ page: 1, name: 'a\u0000' }, 'body.name must not contain a NUL character or an unpaired UTF-16 surrogate', 'body.name 不能包含 NUL 字符或不成对的 UTF-16 代理项'],
    ];
    for (const [data, en, zh] of cases) {
      const m = validate(schema, data);
      assert.equal(m('en-US'), en);
      assert.equal(m('zh-CN'), zh);
    }
  });
});
