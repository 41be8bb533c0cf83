// Payment methods: full CRUD. `code` is unique ignoring case (unique index on lower(code)),
// `config` is stored as jsonb and its secrets never leave the service unmasked. A method that
// payment records refer to cannot be deleted (the foreign key decides); deactivate it instead.
import { eq, ilike, sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { paymentMethods, type PaymentMethodRow } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import type { CreatePaymentMethodBody, PaymentMethodOrderField, PaymentMethodQuery, UpdatePaymentMethodBody } from './payment-methods.schema.ts';
import { unmaskConfig } from './payment-methods.secrets.ts';
import { msg } from '../../../platform/i18n.ts';

/** SQLSTATE of a delete refused by an ON DELETE RESTRICT foreign key. */
const RESTRICT_VIOLATION = '23001';
const methodsList = (orm: Orm) =>
  pagedList(orm, {
    name: 'payment_methods',
    rows: (orm) => orm.select().from(paymentMethods).$dynamic(),
    table: paymentMethods,
    filters: {
      name: { param: contains, where: (x) => ilike(paymentMethods.name, x) },
      code: (x) => sql`lower(${paymentMethods.code}) = lower(${x})`,
      type: (x) => eq(paymentMethods.type, x),
      is_active: { param: (v: string) => v === '1' || v === 'true', where: (x) => eq(paymentMethods.isActive, x) },
    },
    sort: {
      id: paymentMethods.id,
      name: paymentMethods.name,
      code: paymentMethods.code,
      type: paymentMethods.type,
      sort: paymentMethods.sort,
      created_at: paymentMethods.createdAt,
    } satisfies Record<PaymentMethodOrderField, unknown>,
    id: paymentMethods.id,
  });

/**
 * Database failures of writes: unique and foreign-key violations become business errors;
 * anything else is rethrown without the statement's parameters (which hold the config).
 */
function writeError(err: unknown, code: string | undefined): unknown {
  if (err instanceof AppError || err instanceof InvalidInput) return err;
  const sqlState = pgErrorCode(err);
  if (sqlState === UNIQUE_VIOLATION) {
    return new AppError(E.ALREADY_EXISTS, { detail: msg('admin.paymentMethods.codeTaken', { code: code ?? '' }), details: { field: 'code' } });
  }
  // Drizzle's error message lists the parameters: the driver's does not.
  const cause = err instanceof DrizzleQueryError ? err.cause : err;
  return new Error(`writing a payment method failed${sqlState ? ` (SQLSTATE ${sqlState})` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`);
}

/** A payment method (placeholder `id`). */
const rowOf = (orm: Orm) => orm.select().from(paymentMethods).where(eq(paymentMethods.id, p('id'))).prepare('payment_method');

export class PaymentMethodsService {
  private readonly db: Database;
  private readonly methods: ReturnType<typeof methodsList>;
  private readonly rowOf: ReturnType<typeof rowOf>;
  constructor(deps: { db: Database }) {
    this.db = deps.db;
    this.methods = methodsList(this.db.orm);
    this.rowOf = rowOf(this.db.orm);
  }

  async list(q: Static<typeof PaymentMethodQuery>): Promise<{ rows: PaymentMethodRow[]; total: number }> {
    return this.methods.page(q, q);
  }

  async get(id: number): Promise<PaymentMethodRow> {
    const [row] = await this.rowOf.execute({ id });
    if (!row) throw notFound(id);
    return row;
  }

  async create(input: Static<typeof CreatePaymentMethodBody>): Promise<PaymentMethodRow> {
    try {
      const [row] = await this.db.orm.insert(paymentMethods).values({
        name: input.name,
        code: input.code,
        type: input.type,
        config: unmaskConfig(input.config, undefined) as Record<string, unknown>,
        isActive: input.is_active ?? true,
        sort: input.sort ?? 0,
        description: input.description ?? '',
      }).returning();
      return row!;
    } catch (err) {
      throw writeError(err, input.code);
    }
  }

  /** `name` is required by the contract; the other fields change only when sent. */
  async update(id: number, patch: Static<typeof UpdatePaymentMethodBody>): Promise<PaymentMethodRow> {
    try {
      return await this.db.transaction(async (tx) => {
        const [current] = await tx.orm.select({ config: paymentMethods.config }).from(paymentMethods).where(eq(paymentMethods.id, id)).for('update');
        if (!current) throw notFound(id);
        const [row] = await tx.orm.update(paymentMethods).set({
          name: patch.name,
          code: patch.code,
          type: patch.type,
          config: patch.config === undefined ? undefined : unmaskConfig(patch.config, current.config) as Record<string, unknown>,
          isActive: patch.is_active,
          sort: patch.sort,
          description: patch.description,
          updatedAt: sql`now()`,
        }).where(eq(paymentMethods.id, id)).returning();
        return row!;
      });
    } catch (err) {
      throw writeError(err, patch.code);
    }
  }

  async remove(id: number): Promise<void> {
    let deleted: { id: number }[];
    try {
      deleted = await this.db.orm.delete(paymentMethods).where(eq(paymentMethods.id, id)).returning({ id: paymentMethods.id });
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === FOREIGN_KEY_VIOLATION || code === RESTRICT_VIOLATION) {
        // The refusal names the method, read once the delete was refused (the row it kept).
        throw new AppError(E.DELETE_FAILED, { detail: msg('admin.paymentMethods.hasPayments', { name: (await this.get(id)).name }) });
      }
      throw err;
    }
    if (deleted.length === 0) throw notFound(id);
  }
}

const notFound = (id: number) => new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.paymentMethods.methodNotFound', { id }) });
