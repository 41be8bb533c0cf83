// Payment methods: full CRUD. `code` is unique ignoring case (unique index on lower(code)),
// `config` is stored as jsonb and its secrets never leave the service unmasked. A method that
// payment records refer to cannot be deleted (the foreign key decides); deactivate it instead.
import type { Database } from '../../../platform/db/database.ts';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION } from '../../../platform/db/errors.ts';
import { contains } from '../../../platform/db/like.ts';
import { AppError, InvalidInput } from '../../../platform/http/errors.ts';
import { offsetOf, parseOrderBy } from '../../../platform/http/schemas.ts';
import { E } from '../../errors.ts';
import type { PaymentMethodOrderField } from './payment-methods.schema.ts';
import { unmaskConfig } from './payment-methods.secrets.ts';

export interface PaymentMethodRow {
  id: number;
  name: string;
  code: string;
  type: string;
  /** Unmasked: mask with maskConfig before it leaves the service's callers. */
  config: Record<string, unknown>;
  is_active: boolean;
  sort: number;
  description: string;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface PaymentMethodInput {
  name: string;
  code: string;
  type: string;
  config: Record<string, unknown>;
  is_active?: boolean | undefined;
  sort?: number | undefined;
  description?: string | undefined;
}

export interface PaymentMethodPatch {
  name: string;
  code?: string | undefined;
  type?: string | undefined;
  config?: Record<string, unknown> | undefined;
  is_active?: boolean | undefined;
  sort?: number | undefined;
  description?: string | undefined;
}

export interface PaymentMethodListInput {
  page: number;
  page_size: number;
  name?: string | undefined;
  code?: string | undefined;
  type?: string | undefined;
  is_active?: '1' | '0' | 'true' | 'false' | undefined;
  order_by: string;
}

/** SQLSTATE of a delete refused by an ON DELETE RESTRICT foreign key. */
const RESTRICT_VIOLATION = '23001';
const COLUMNS = 'id, name, code, type, config, is_active, sort, description, created_at, updated_at';


/**
 * Database failures of writes: unique and foreign-key violations become business errors;
 * anything else is rethrown without the statement's parameters (which hold the config).
 */
function writeError(err: unknown, code: string | undefined): unknown {
  if (err instanceof AppError || err instanceof InvalidInput) return err;
  const sqlState = pgErrorCode(err);
  if (sqlState === UNIQUE_VIOLATION) {
    return new AppError(E.ALREADY_EXISTS, { detail: `a payment method with code "${code ?? ''}" already exists (codes ignore case)`, details: { field: 'code' } });
  }
  return new Error(`writing a payment method failed${sqlState ? ` (SQLSTATE ${sqlState})` : ''}: ${err instanceof Error ? err.message : String(err)}`);
}

export class PaymentMethodsService {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  async list(q: PaymentMethodListInput): Promise<{ rows: PaymentMethodRow[]; total: number }> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      clauses.push(clause(`$${params.length}`));
    };
    if (q.name) add((p) => `name ILIKE ${p}`, contains(q.name));
    if (q.code) add((p) => `lower(code) = lower(${p})`, q.code);
    if (q.type) add((p) => `type = ${p}`, q.type);
    if (q.is_active !== undefined) add((p) => `is_active = ${p}::boolean`, q.is_active === '1' || q.is_active === 'true');
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const { field, direction } = parseOrderBy<PaymentMethodOrderField>(q.order_by);
    const dir = direction === 'asc' ? 'ASC' : 'DESC';
    const sort = field === 'id' ? `id ${dir}` : `${field} ${dir}, id ${dir}`;
    const n = params.length;
    const [rows, counted] = await Promise.all([
      this.db.query<PaymentMethodRow>(`SELECT ${COLUMNS} FROM admin.payment_methods ${where} ORDER BY ${sort} LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, q.page_size, offsetOf(q)]),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.payment_methods ${where}`, params),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  async get(id: number): Promise<PaymentMethodRow> {
    const [row] = await this.db.query<PaymentMethodRow>(`SELECT ${COLUMNS} FROM admin.payment_methods WHERE id = $1`, [id]);
    if (!row) throw notFound(id);
    return row;
  }

  async create(input: PaymentMethodInput): Promise<PaymentMethodRow> {
    try {
      const config = JSON.stringify(unmaskConfig(input.config, undefined));
      const [row] = await this.db.query<PaymentMethodRow>(
        `INSERT INTO admin.payment_methods (name, code, type, config, is_active, sort, description)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) RETURNING ${COLUMNS}`,
        [input.name, input.code, input.type, config, input.is_active ?? true, input.sort ?? 0, input.description ?? ''],
      );
      return row!;
    } catch (err) {
      throw writeError(err, input.code);
    }
  }

  /** `name` is required by the contract; the other fields change only when sent. */
  async update(id: number, patch: PaymentMethodPatch): Promise<PaymentMethodRow> {
    try {
      return await this.db.transactionRaw(async (tx) => {
        const [current] = await tx.query<{ config: Record<string, unknown> }>('SELECT config FROM admin.payment_methods WHERE id = $1 FOR UPDATE', [id]);
        if (!current) throw notFound(id);
        const config = patch.config === undefined ? null : JSON.stringify(unmaskConfig(patch.config, current.config));
        const [row] = await tx.query<PaymentMethodRow>(
          `UPDATE admin.payment_methods SET
             name = $2,
             code = COALESCE($3, code),
             type = COALESCE($4, type),
             config = COALESCE($5::jsonb, config),
             is_active = COALESCE($6::boolean, is_active),
             sort = COALESCE($7::integer, sort),
             description = COALESCE($8, description),
             updated_at = now()
           WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, patch.name, patch.code ?? null, patch.type ?? null, config, patch.is_active ?? null, patch.sort ?? null, patch.description ?? null],
        );
        return row!;
      });
    } catch (err) {
      throw writeError(err, patch.code);
    }
  }

  async remove(id: number): Promise<void> {
    let deleted: { id: number }[];
    try {
      deleted = await this.db.query<{ id: number }>('DELETE FROM admin.payment_methods WHERE id = $1 RETURNING id', [id]);
    } catch (err) {
      const code = pgErrorCode(err);
      if (code === FOREIGN_KEY_VIOLATION || code === RESTRICT_VIOLATION) {
        throw new AppError(E.DELETE_FAILED, { detail: `payment method ${id} has payment records and cannot be deleted; deactivate it instead (is_active: false)` });
      }
      throw err;
    }
    if (deleted.length === 0) throw notFound(id);
  }
}

const notFound = (id: number) => new AppError(E.DATA_NOT_FOUND, { detail: `no payment method ${id}` });
