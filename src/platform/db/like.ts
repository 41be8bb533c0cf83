/** Escapes LIKE wildcards in user input so that `%` and `_` match themselves. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%term%` for fuzzy filters. */
export const contains = (s: string) => `%${escapeLike(s)}%`;
