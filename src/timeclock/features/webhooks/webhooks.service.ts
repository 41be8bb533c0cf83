// Webhook endpoints registered by managers, and their delivery log. Sending is the
// dispatcher's job (webhooks.dispatcher.ts); events enter the outbox through enqueueWebhook.
import { randomBytes } from 'node:crypto';
import type { Database } from '../../../platform/db/database.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { E } from '../../errors.ts';
import { iso, num } from '../../http.ts';
import { privateHostProblem } from './webhooks.http.ts';
import { WEBHOOK_CHANNEL, type WebhookEvent } from './webhooks.outbox.ts';

export interface EndpointRow {
  id: number;
  url: string;
  events: string[];
  description: string;
  is_active: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

interface DeliveryRow {
  id: number;
  endpoint_id: number;
  resend_of: number | null;
  event: string;
  payload: string;
  status: 'pending' | 'processing' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  delivered_at: Date | string | null;
}

const ENDPOINT_COLUMNS = 'id, url, events, description, is_active, created_at, updated_at';
const DELIVERY_COLUMNS = `id, endpoint_id, resend_of, event, payload, status, attempts, next_attempt_at, last_status_code,
  last_error, created_at, updated_at, delivered_at`;

/** Postgres text[] arrives as an array from both drivers; a literal `{a,b}` is parsed just in case. */
const textArray = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : String(v).replace(/^\{|\}$/g, '').split(',').filter(Boolean);

export function endpointView(r: EndpointRow) {
  return {
    id: num(r.id),
    url: r.url,
    events: textArray(r.events),
    description: r.description,
    is_active: r.is_active,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function deliveryView(r: DeliveryRow) {
  const finished = r.status === 'delivered' || r.status === 'failed';
  return {
    id: num(r.id),
    endpoint_id: num(r.endpoint_id),
    event: r.event,
    status: r.status,
    attempts: num(r.attempts),
    next_attempt_at: finished ? null : iso(r.next_attempt_at),
    last_status_code: r.last_status_code === null ? null : num(r.last_status_code),
    last_error: r.last_error,
    resend_of: r.resend_of === null ? null : num(r.resend_of),
    payload: JSON.parse(r.payload) as { event: string; data: Record<string, unknown> },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    delivered_at: r.delivered_at === null ? null : iso(r.delivered_at),
  };
}

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const notFound = (id: number) => new AppError(E.NOT_FOUND, { detail: `webhook ${id} not found`, details: { webhookId: id } });

export interface EndpointInput {
  url: string;
  events: WebhookEvent[];
  description?: string | undefined;
  is_active?: boolean | undefined;
}

export class WebhooksService {
  private readonly db: Database;
  private readonly allowPrivate: boolean;

  constructor(db: Database, allowPrivate: boolean) {
    this.db = db;
    this.allowPrivate = allowPrivate;
  }

  /** 400 unless `url` is an absolute http(s) URL without credentials (and public, when required). */
  private checkUrl(url: string): string {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'url is not a valid URL', details: { field: 'url' } });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'url must be http or https', details: { field: 'url' } });
    }
    if (parsed.username || parsed.password) {
      throw new AppError(E.VALIDATION_ERROR, { detail: 'url must not carry a user name or password', details: { field: 'url' } });
    }
    if (!this.allowPrivate) {
      const problem = privateHostProblem(parsed);
      if (problem) throw new AppError(E.VALIDATION_ERROR, { detail: `url: ${problem} (WEBHOOK_ALLOW_PRIVATE is off)`, details: { field: 'url' } });
    }
    return parsed.toString();
  }

  async create(input: EndpointInput, createdBy: number): Promise<ReturnType<typeof endpointView> & { secret: string }> {
    const url = this.checkUrl(input.url);
    const secret = newSecret();
    const [row] = await this.db.query<EndpointRow>(
      `INSERT INTO timeclock.webhook_endpoints (url, events, secret, description, is_active, created_by)
       VALUES ($1, $2::text[], $3, $4, $5, $6) RETURNING ${ENDPOINT_COLUMNS}`,
      [url, input.events, secret, input.description ?? '', input.is_active ?? true, createdBy],
    );
    return { ...endpointView(row!), secret };
  }

  async list(): Promise<ReturnType<typeof endpointView>[]> {
    const rows = await this.db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM timeclock.webhook_endpoints ORDER BY id`);
    return rows.map(endpointView);
  }

  async get(id: number): Promise<ReturnType<typeof endpointView>> {
    const [row] = await this.db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM timeclock.webhook_endpoints WHERE id = $1`, [id]);
    if (!row) throw notFound(id);
    return endpointView(row);
  }

  /** Partial update: fields left out keep their values. Reactivating wakes the dispatchers for waiting deliveries. */
  async update(id: number, patch: Partial<EndpointInput>): Promise<ReturnType<typeof endpointView>> {
    const url = patch.url === undefined ? null : this.checkUrl(patch.url);
    const [row] = await this.db.transactionRaw(async (tx) => {
      const rows = await tx.query<EndpointRow>(
        `UPDATE timeclock.webhook_endpoints SET
           url = coalesce($2, url), events = coalesce($3::text[], events), description = coalesce($4, description),
           is_active = coalesce($5, is_active), updated_at = now()
         WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
        [id, url, patch.events ?? null, patch.description ?? null, patch.is_active ?? null],
      );
      if (rows[0]?.is_active && patch.is_active) await tx.query('SELECT pg_notify($1::text, \'\')', [WEBHOOK_CHANNEL]);
      return rows;
    });
    if (!row) throw notFound(id);
    return endpointView(row);
  }

  /** Deletes the endpoint with its delivery log (pending deliveries are dropped). */
  async remove(id: number): Promise<void> {
    const rows = await this.db.query('DELETE FROM timeclock.webhook_endpoints WHERE id = $1 RETURNING id', [id]);
    if (rows.length === 0) throw notFound(id);
  }

  /** Replaces the signing secret; the new one is returned once. */
  async rotateSecret(id: number): Promise<ReturnType<typeof endpointView> & { secret: string }> {
    const secret = newSecret();
    const [row] = await this.db.query<EndpointRow>(
      `UPDATE timeclock.webhook_endpoints SET secret = $2, updated_at = now() WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, secret],
    );
    if (!row) throw notFound(id);
    return { ...endpointView(row), secret };
  }

  async deliveries(endpointId: number, q: { status?: string | undefined; page: number; limit: number }) {
    await this.get(endpointId);
    const params: unknown[] = [endpointId];
    let filter = 'endpoint_id = $1';
    if (q.status !== undefined) {
      params.push(q.status);
      filter += ' AND status = $2';
    }
    const [count] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM timeclock.webhook_deliveries WHERE ${filter}`, params);
    const rows = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM timeclock.webhook_deliveries WHERE ${filter}
       ORDER BY id DESC LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`,
      params,
    );
    return { deliveries: rows.map(deliveryView), total: num(count?.n ?? 0) };
  }

  /** Queues a new delivery of the same body to the same endpoint; the original stays in the log. */
  async resend(deliveryId: number): Promise<ReturnType<typeof deliveryView>> {
    return this.db.transactionRaw(async (tx) => {
      const [original] = await tx.query<{ endpoint_id: number; is_active: boolean }>(
        `SELECT d.endpoint_id, e.is_active FROM timeclock.webhook_deliveries d
         JOIN timeclock.webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1 FOR SHARE OF e`,
        [deliveryId],
      );
      if (!original) throw new AppError(E.NOT_FOUND, { detail: `delivery ${deliveryId} not found`, details: { deliveryId } });
      if (!original.is_active) {
        throw new AppError(E.CONFLICT, { detail: 'the endpoint is inactive: activate it first', details: { webhookId: num(original.endpoint_id) } });
      }
      const [row] = await tx.query<DeliveryRow>(
        `INSERT INTO timeclock.webhook_deliveries (endpoint_id, resend_of, event, payload)
         SELECT endpoint_id, id, event, payload FROM timeclock.webhook_deliveries WHERE id = $1
         RETURNING ${DELIVERY_COLUMNS}`,
        [deliveryId],
      );
      await tx.query('SELECT pg_notify($1::text, \'\')', [WEBHOOK_CHANNEL]);
      return deliveryView(row!);
    });
  }
}
