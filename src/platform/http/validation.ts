// Request validation from route schemas. Bodies are validated strictly (no type coercion:
// "12" is not a number); path and query strings are coerced, as they can only be strings.
// Every value must be storable: numbers finite (JSON's 1e400 and a query's `Infinity` are
// refused), and no string anywhere in a request part (values or keys) may hold a NUL character
// or an unpaired UTF-16 surrogate, which PostgreSQL cannot store: refused here, once for every
// route of both services.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { msg, translate, type Locale, type MessageKey, type Msg } from '../i18n.ts';
import { escapeIllFormed, isIllFormed } from '../text.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  // verbose: a failure carries its schema, so that a union's message can list what it accepts.
  // allErrors: a refusal lists every bad field, not only the first (validationMessages keeps one
  // message per field).
  const ajv = new Ajv({ allErrors: true, verbose: true, useDefaults: true, removeAdditional: false, strict: false, strictNumbers: true, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * The first value in `value` that no column can hold: a string (value or key) with a NUL
 * character or an unpaired surrogate, or a number that is not finite. Its JSON pointer
 * (`/a/0/b`) and the sentence that says why; undefined when there is none. Iterative: a
 * deeply nested body cannot exhaust the stack.
 */
export function findUnstorable(value: unknown): { at: string; message: MessageKey } | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (isIllFormed(v)) return { at, message: ILL_FORMED };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { at, message: 'validation.finite' };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}/${i}`]);
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (isIllFormed(key)) return { at: `${at}/${escapeIllFormed(key)}`, message: ILL_FORMED };
        stack.push([(v as Record<string, unknown>)[key], `${at}/${key}`]);
      }
    }
  }
  return undefined;
}

const ILL_FORMED = 'validation.illFormed';

type Validate = ((data: unknown, ctx?: unknown) => boolean) & { errors?: unknown; schemaEnv?: unknown };

/**
 * The compiled schema, with unstorable values refused before it runs and, where strings are
 * coerced, again after it: Ajv coerces `Infinity` and `1e309` to numbers without checking
 * them against `minimum`/`maximum`.
 */
function guarded(compiled: Validate, coerces: boolean): Validate {
  const validate: Validate = (data, ctx) => {
    let bad = findUnstorable(data);
    if (!bad) {
      if (!compiled(data, ctx)) {
        validate.errors = compiled.errors;
        return false;
      }
      if (!coerces || !(bad = findUnstorable(data))) return true;
    }
    validate.errors = [{ keyword: 'storable', instancePath: bad.at, schemaPath: '', params: {}, message: bad.message }];
    return false;
  };
  // Fastify passes the parent object to validators that have it, so that the root can be coerced.
  validate.schemaEnv = compiled.schemaEnv;
  return validate;
}

/**
 * The validator factory of every context. Fastify builds a new one whenever a context adds
 * shared schemas (addSchema), so it is installed as the schema controller's factory rather
 * than with setValidatorCompiler, which a child context adding schemas would silently drop.
 */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<object> {
  const bodyAjv = makeAjv({ coerceTypes: false });
  const stringAjv = makeAjv({ coerceTypes: 'array' });
  for (const schema of Object.values(externalSchemas)) {
    bodyAjv.addSchema(schema as object);
    stringAjv.addSchema(schema as object);
  }
  return ({ schema, httpPart }) =>
    (httpPart === 'body' ? guarded(bodyAjv.compile(schema) as Validate, false) : guarded(stringAjv.compile(schema) as Validate, true)) as ReturnType<FastifySchemaCompiler<object>>;
}

/** The compiler without shared schemas (tests of schemas in isolation). */
export const validatorCompiler = buildValidator();

/** A request part that failed its schema: one message per failure, rendered in the reader's language. */
export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  readonly messages: Msg[];
  constructor(messages: Msg[]) {
    super(translate(messages, 'en-US'));
    this.messages = messages;
  }
}

const TYPE_NAMES: Record<string, MessageKey> = {
  string: 'validation.type.string',
  integer: 'validation.type.integer',
  number: 'validation.type.number',
  boolean: 'validation.type.boolean',
  object: 'validation.type.object',
  array: 'validation.type.array',
  null: 'validation.type.null',
};
const typeName = (type: string): Msg | string => (TYPE_NAMES[type] ? msg(TYPE_NAMES[type]) : type);

type Schema = { const?: unknown; enum?: unknown[]; type?: string | string[]; anyOf?: Schema[]; oneOf?: Schema[] };

/** A value as a message shows it: the empty string as "". */
const shown = (v: unknown) => (v === '' ? '""' : String(v));

/** What a union accepts, once each: its values and types (`clock_in`, `clock_out`, `string`, `null`). */
function accepted(branches: Schema[]): (Msg | string)[] {
  const all = branches.flatMap((b): (Msg | string)[] => {
    if (b.const !== undefined) return [shown(b.const)];
    if (b.enum) return b.enum.map(shown);
    if (b.anyOf ?? b.oneOf) return accepted((b.anyOf ?? b.oneOf)!);
    if (b.type) return [b.type].flat().map(typeName);
    return [msg('validation.type.other')];
  });
  const seen = new Set<string>();
  return all.filter((x) => {
    const id = typeof x === 'string' ? `v:${x}` : `k:${x.key}`;
    return !seen.has(id) && seen.add(id);
  });
}

/**
 * One message per bad field (its first failure), naming the field (`query.page_size`) and, for
 * enumerations and unions, the values allowed. The failures of a union's branches are folded
 * into the union's.
 */
export function validationMessages(errors: FastifySchemaValidationError[], dataVar: string): Msg[] {
  const all = errors as unknown as ErrorObject[];
  const unions = all.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
  const seen = new Set<string>();
  return all
    .filter((e) => !unions.some((u) => e.schemaPath.startsWith(u)))
    .filter((e) => {
      const params = e.params as Record<string, unknown>;
      const named = (e.keyword === 'required' ? params.missingProperty : e.keyword === 'additionalProperties' ? params.additionalProperty : undefined) as string | undefined;
      const key = named === undefined ? e.instancePath : `${e.instancePath}/${named}`;
      return !seen.has(key) && seen.add(key);
    })
    .map((err) => {
      const where = [dataVar, ...err.instancePath.split('/').filter(Boolean)].join('.');
      const params = err.params as Record<string, unknown>;
      const field = (name: unknown) => `${where}.${String(name)}`;
      switch (err.keyword) {
        case 'required':
          return msg('validation.required', { field: field(params.missingProperty) });
        case 'additionalProperties':
          return msg('validation.additionalProperties', { field: field(params.additionalProperty) });
        case 'enum':
          return msg('validation.oneOf', { field: where, values: (params.allowedValues as unknown[]).map(shown) });
        case 'const':
          return msg('validation.const', { field: where, value: shown(params.allowedValue) });
        case 'anyOf':
        case 'oneOf':
          if (Array.isArray(err.schema)) return msg('validation.oneOf', { field: where, values: accepted(err.schema as Schema[]) });
          return msg('validation.invalid', { field: where });
        case 'type':
          return msg('validation.type', { field: where, type: String(params.type).split(',').map(typeName) });
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          return msg('validation.compare', { field: where, comparison: String(params.comparison), limit: String(params.limit) });
        case 'minLength':
          return msg('validation.minLength', { field: where, limit: String(params.limit) });
        case 'maxLength':
          return msg('validation.maxLength', { field: where, limit: String(params.limit) });
        case 'minItems':
          return msg('validation.minItems', { field: where, limit: String(params.limit) });
        case 'maxItems':
          return msg('validation.maxItems', { field: where, limit: String(params.limit) });
        case 'minProperties':
          return msg('validation.minProperties', { field: where, limit: String(params.limit) });
        case 'maxProperties':
          return msg('validation.maxProperties', { field: where, limit: String(params.limit) });
        case 'uniqueItems':
          return msg('validation.uniqueItems', { field: where, i: String(params.j), j: String(params.i) });
        case 'multipleOf':
          return msg('validation.multipleOf', { field: where, value: String(params.multipleOf) });
        case 'pattern':
          return msg('validation.pattern', { field: where, pattern: String(params.pattern) });
        case 'format':
          return msg('validation.format', { field: where, format: String(params.format) });
        case 'storable':
          return msg(err.message as MessageKey, { field: where });
        default:
          return msg('validation.invalid', { field: where });
      }
    });
}

/** The messages of `validationMessages` as one text: `query.page_size must be <= 100`. */
export function describeValidation(errors: FastifySchemaValidationError[], dataVar: string, locale: Locale = 'en-US'): string {
  return translate(validationMessages(errors, dataVar), locale);
}
