// Request validation from route schemas. Bodies are validated strictly (no type coercion:
// "12" is not a number); path and query strings are coerced, as they can only be strings.
// Every value must be storable: numbers finite (JSON's 1e400 and a query's `Infinity` are
// refused), and no string anywhere in a request part (values or keys) may hold a NUL character
// or an unpaired UTF-16 surrogate, which PostgreSQL cannot store: refused here, once for every
// route of both services.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { escapeIllFormed, isIllFormed } from '../text.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, strictNumbers: true, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * The first value in `value` that no column can hold: a string (value or key) with a NUL
 * character or an unpaired surrogate, or a number that is not finite. Its JSON pointer
 * (`/a/0/b`) and the sentence that says why; undefined when there is none. Iterative: a
 * deeply nested body cannot exhaust the stack.
 */
export function findUnstorable(value: unknown): { at: string; message: string } | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (isIllFormed(v)) return { at, message: ILL_FORMED };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { at, message: 'must be a finite number' };
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

const ILL_FORMED = 'must not contain a NUL character or an unpaired UTF-16 surrogate';

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

/** One readable sentence per failure, naming the field: `query.page_size must be <= 100`. */
export function describeValidation(errors: FastifySchemaValidationError[], dataVar: string): string {
  return errors
    .map((e) => {
      const err = e as unknown as ErrorObject;
      const where = [dataVar, ...err.instancePath.split('/').filter(Boolean)].join('.');
      const params = err.params as Record<string, unknown>;
      switch (err.keyword) {
        case 'required':
          return `${where}.${String(params.missingProperty)} is required`;
        case 'additionalProperties':
          return `${where}.${String(params.additionalProperty)} is not an accepted field`;
        case 'enum':
          return `${where} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
        case 'type':
          return `${where} must be ${params.type === 'number' ? 'a finite number' : String(params.type)}`;
        default:
          return `${where} ${err.message ?? 'is invalid'}`;
      }
    })
    .join('; ');
}
