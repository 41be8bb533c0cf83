// Request validation from route schemas. Bodies are validated strictly (no type coercion:
// "12" is not a number); path and query strings are coerced, as they can only be strings.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
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
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : stringAjv).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
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
          return `${where} must be ${String(params.type)}`;
        default:
          return `${where} ${err.message ?? 'is invalid'}`;
      }
    })
    .join('; ');
}
