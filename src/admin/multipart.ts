// Errors of the multipart parser (busboy and @fastify/multipart report plain errors) in the
// admin envelope, for every route that reads multipart/form-data.
import { AppError } from '../platform/http/errors.ts';
import { E } from './errors.ts';
import { msg, type Msg } from '../platform/i18n.ts';

/**
 * Our error for a parser failure: a part over the route's count limits → 30001 with
 * `tooManyParts(code)`, a forbidden part name → 30001, a malformed body → 30004; anything else
 * is returned unchanged.
 */
export function multipartParserError(err: unknown, tooManyParts: (code: 'FST_FILES_LIMIT' | 'FST_FIELDS_LIMIT' | 'FST_PARTS_LIMIT') => Msg): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  switch (e.code) {
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError(E.VALIDATION, { detail: tooManyParts(e.code) });
    case 'FST_PROTO_VIOLATION':
      return new AppError(E.VALIDATION, { detail: msg('admin.multipart.forbiddenPartName') });
  }
  if (typeof e.message === 'string' && /multipart|boundary|unexpected end|terminated early|malformed/i.test(e.message)) {
    return new AppError(E.INVALID_FORMAT, { detail: msg('admin.multipart.malformedBody') });
  }
  return err;
}
