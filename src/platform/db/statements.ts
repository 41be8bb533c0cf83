// Drizzle builds a statement's text anew on every call: about 0.1 ms of CPU per statement on
// this machine, as much as PostgreSQL spends running a page of a list. The statements of the
// everyday read paths are therefore built once per shape and kept, Drizzle's prepared queries
// with placeholders: a shape is what decides the text (which filters are set, the sort), the
// values go in as parameters. (PostgreSQL then also keeps each text's plan: database.ts.)
// Paged lists use them through the list kit (./list.ts), which derives the shape itself.
import { fillPlaceholders, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

/** Kept statements of one call site, by shape. */
export class Statements<S> {
  private readonly byShape = new Map<string, S>();
  private readonly max: number;

  /** At most `max` shapes are kept; further ones are built on every call. */
  constructor(max = 512) {
    this.max = max;
  }

  get(shape: string, build: () => S): S {
    let statement = this.byShape.get(shape);
    if (statement === undefined) {
      statement = build();
      if (this.byShape.size < this.max) this.byShape.set(shape, statement);
    }
    return statement;
  }
}

/**
 * The parameters of a filter and its shape: `set(name, value)` records a value when it is
 * defined and returns whether it was, so a filter is written once, as conditions on
 * placeholders (`p(name)`) guarded by `has(name)`.
 */
export class Params {
  readonly values: Record<string, unknown> = {};
  private shapeParts: string[] = [];

  set(name: string, value: unknown): this {
    if (value !== undefined && value !== null && value !== '') {
      this.values[name] = value;
      this.shapeParts.push(name);
    }
    return this;
  }

  /** A part of the shape that is not a parameter (a sort, a null test). */
  shape(part: string): this {
    this.shapeParts.push(`=${part}`);
    return this;
  }

  has(name: string): boolean {
    return name in this.values;
  }

  /** Values read together by one condition (`<group>.<name>` each), present whatever they are. */
  group(group: string, values: Record<string, unknown>): this {
    for (const [name, value] of Object.entries(values)) this.values[`${group}.${name}`] = value;
    this.shapeParts.push(`${group}.*`);
    return this;
  }

  hasGroup(group: string): boolean {
    return this.shapeParts.includes(`${group}.*`);
  }

  get key(): string {
    return this.shapeParts.join('|');
  }
}

/** A named placeholder (Drizzle's `sql.placeholder`). */
export const p = (name: string): Placeholder => sql.placeholder(name);

const dialect = new PgDialect();

/**
 * `query` as text with `$n` parameters, for the raw runner (`RawExec`) and COPY, which take no
 * Drizzle statement; its placeholders are filled from `values`.
 */
export function rendered(query: SQL, values: Record<string, unknown> = {}): { text: string; params: unknown[] } {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params: fillPlaceholders(params, values) };
}
