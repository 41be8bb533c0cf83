// Text PostgreSQL cannot store: the NUL character (refused in text and jsonb) and unpaired
// UTF-16 surrogates (refused in jsonb, and not valid UTF-8 anywhere).

/** Whether `s` holds a NUL character or an unpaired surrogate. */
export const isIllFormed = (s: string): boolean => s.includes('\0') || !s.isWellFormed();

const ILL_FORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with each NUL and unpaired surrogate written out as the six characters `\uXXXX`. */
export const escapeIllFormed = (s: string): string =>
  isIllFormed(s) ? s.replace(ILL_FORMED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
