// The en-US message catalogue (each service's part in en-US.<service>.ts): every text of both services that a client can read in an error,
// the admin envelope's success message, and the time clock's seeded names (shown in the reader's
// language until renamed: src/timeclock/seeds.ts). Keys are `<service>.<feature>.<name>`; `{name}` is
// a parameter. zh-CN.ts must hold the same keys (the type checks it, test/platform/messages.test.ts
// checks the parameters and that no English is left in it). New messages go in both files.
import { enUSAdmin } from './en-US.admin.ts';
import { enUSTimeclock } from './en-US.timeclock.ts';

export const enUS = {
  // Shared forms
  'common.withDetail': '{message}: {detail}',
  'common.listSeparator': ', ',
  'common.sentenceSeparator': '; ',
  'common.verbatim': '{text}',
  // Rendered as the country's name in the reader's language (countryName in platform/i18n.ts), not from this text.
  'common.country': '{code}',

  // Requests the framework refuses before a route runs
  'request.route': '{method} {path}',
  'request.invalidJson': 'the body is not valid JSON',
  'request.jsonTooDeep': 'the body nests more than {limit} levels of objects and arrays',
  'request.emptyJson': 'the body is empty but its content-type is application/json',
  'request.contentLength': 'the Content-Length header does not match the body',
  'request.mediaType': 'the content type {type} is not accepted',
  'request.invalid': 'the request is malformed',

  // Dependencies out of service (503)
  'unavailable.database': 'database unreachable',
  'unavailable.redis': 'Redis unreachable',
  'unavailable.storage': 'file storage unreachable',
  'unavailable.statementTimeout': 'a database statement took too long and was cancelled',

  // Validation against a route's schema; {field} is the field's path (body.items.0.sku)
  'validation.required': '{field} is required',
  'validation.additionalProperties': '{field} is not an accepted field',
  'validation.oneOf': '{field} must be one of: {values}',
  'validation.const': '{field} must be {value}',
  'validation.type': '{field} must be {type}',
  'validation.type.string': 'string',
  'validation.type.integer': 'integer',
  'validation.type.number': 'a finite number',
  'validation.type.boolean': 'boolean',
  'validation.type.object': 'object',
  'validation.type.array': 'array',
  'validation.type.null': 'null',
  'validation.type.other': 'a value of another shape',
  'validation.compare': '{field} must be {comparison} {limit}',
  'validation.minLength': '{field} must NOT have fewer than {limit} characters',
  'validation.maxLength': '{field} must NOT have more than {limit} characters',
  'validation.minItems': '{field} must NOT have fewer than {limit} items',
  'validation.maxItems': '{field} must NOT have more than {limit} items',
  'validation.minProperties': '{field} must NOT have fewer than {limit} properties',
  'validation.maxProperties': '{field} must NOT have more than {limit} properties',
  'validation.uniqueItems': '{field} must NOT have duplicate items (items {i} and {j} are identical)',
  'validation.multipleOf': '{field} must be a multiple of {value}',
  'validation.pattern': '{field} must match pattern "{pattern}"',
  'validation.format': '{field} must match format "{format}"',
  'validation.finite': '{field} must be a finite number',
  'validation.illFormed': '{field} must not contain a NUL character or an unpaired UTF-16 surrogate',
  'validation.invalid': '{field} is invalid',

  // Nouns that messages name things by
  'noun.menu': 'menu',
  'noun.department': 'department',
  'noun.role': 'role',
  'noun.permission': 'permission',

  // Platform checks shared by both services
  'platform.schemas.startTimeNotValid': 'start_time is not a valid date and time',
  'platform.schemas.endTimeNotValid': 'end_time is not a valid date and time',
  'platform.schemas.startTimeMustNot': 'start_time must not be after end_time',
  'platform.schemas.timeRangeMustNot': 'the time range must not exceed {maxMonths} months',
  'platform.tree.cannotOwnParent': '{noun} {id} cannot be its own parent',
  'platform.tree.parentIdDescendantMoving': 'parent_id {parentId} is a descendant of {noun} {id}: moving it there would make a cycle',
  // The password policy (src/platform/auth/password-policy.ts): each refusal names its rule
  'platform.password.minLength': 'the password must be at least {min} characters long',
  'platform.password.charClasses': 'the password must mix at least {min} of the 4 kinds of characters: lower-case letters, upper-case letters, digits, other characters (symbols, spaces)',
  'platform.password.username': 'the password must not contain the username',
  'platform.password.common': 'the password is one of the 10,000 most common passwords: choose a less guessable one',
  'platform.password.history': 'the password must differ from the last {count} passwords of the account',
  'platform.password.sameAsCurrent': 'the new password must differ from the current one',

  // Each service's own messages
  ...enUSAdmin,
  ...enUSTimeclock,
} as const;

export type MessageKey = keyof typeof enUS;
