// JSON request bodies of every route of both services: nested at most JSON_MAX_DEPTH levels of
// objects and arrays. Anything recursive (schema validation of free-form fields, secret masking,
// serialisers, Drizzle's JSON columns, PostgreSQL's own jsonb parser, which stops at a few
// thousand levels) would otherwise meet a body of thousands of levels, which no client of these
// APIs sends. The depth is counted over the raw text in one pass, before anything parses it, and
// a deeper body is refused with a 400 in the service's envelope (conventions.ts's classify).
import type { FastifyInstance } from 'fastify';

/** Levels of objects and arrays a JSON body may nest (`{"a":[1]}` is 2); the routes' own bodies nest a handful. */
export const JSON_MAX_DEPTH = 32;

/** A JSON body nested deeper than JSON_MAX_DEPTH. */
export class JsonTooDeep extends Error {
  override name = 'JsonTooDeep';
  readonly code = 'JSON_TOO_DEEP';
  readonly statusCode = 400;
  readonly limit: number;
  constructor(limit: number) {
    super(`the body nests more than ${limit} levels of objects and arrays`);
    this.limit = limit;
  }
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether `text` (JSON, or anything: malformed text is left to the parser) opens more than
 * `limit` objects and arrays inside one another, brackets within strings not counted. One pass,
 * no recursion.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // A text shorter than that cannot open that many levels.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/**
 * Replaces the server's `application/json` parser (inherited by every service context) with
 * Fastify's own, behind the depth check. Limits, empty bodies and prototype poisoning behave as
 * before.
 */
export function limitJsonDepth(app: FastifyInstance, limit = JSON_MAX_DEPTH): void {
  const parse = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, limit)) {
      done(new JsonTooDeep(limit), undefined);
      return;
    }
    void parse(request, body as string, done);
  });
}
