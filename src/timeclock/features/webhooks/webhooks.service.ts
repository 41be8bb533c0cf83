// Webhook endpoints registered by managers, and their delivery log. Sending is the
// dispatcher's job (webhooks.dispatcher.ts); events enter the outbox through enqueueWebhook.
import { randomBytes } from 'node:crypto';
import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Database, Orm } from '../../../platform/db/database.ts';
import { pagedList } from '../../../platform/db/list.ts';
import { p } from '../../../platform/db/statements.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.ts';
import { E } from '../../errors.ts';
import { privateHostProblem } from './webhooks.http.ts';
import { WEBHOOK_CHANNEL } from '../../kernel/webhook-outbox.ts';
import type {
  CreateWebhookBody, DeliveriesQuery, DeliveriesReply, DeliveryRecord, UpdateWebhookBody, WebhookRecord, WebhookWithSecret,
} from './webhooks.schema.ts';
import { msg } from '../../../platform/i18n.ts';

type Delivery = typeof webhookDeliveries.$inferSelect;

/** An endpoint's columns but its secret, which is shown only when it is made. */
const { secret: _secret, createdBy: _createdBy, ...endpointColumns } = getTableColumns(webhookEndpoints);
type Endpoint = { [K in keyof typeof endpointColumns]: (typeof webhookEndpoints.$inferSelect)[K] };

const endpointView = (r: Endpoint): Static<typeof WebhookRecord> => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  is_active: r.isActive,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

const deliveryView = (r: Delivery): Static<typeof DeliveryRecord> => {
  const finished = r.status === 'delivered' || r.status === 'failed';
  return {
    id: r.id,
    endpoint_id: r.endpointId,
    event: r.event,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: finished ? null : r.nextAttemptAt.toISOString(),
    last_status_code: r.lastStatusCode,
    last_error: r.lastError,
    resend_of: r.resendOf,
    payload: JSON.parse(r.payload) as { event: string; data: Record<string, unknown> },
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    delivered_at: r.deliveredAt?.toISOString() ?? null,
  };
};

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const notFound = (id: number) => new AppError(E.NOT_FOUND, { detail: msg('timeclock.webhooks.webhookNotFound', { id }), details: { webhookId: id } });

/** An endpoint's deliveries, newest first. */
const deliveryList = (orm: Orm) =>
  pagedList(orm, {
    name: 'tc_deliveries',
    rows: (orm) => orm.select().from(webhookDeliveries).$dynamic(),
    table: webhookDeliveries,
    filters: { endpoint_id: (x) => eq(webhookDeliveries.endpointId, x), status: (x) => eq(webhookDeliveries.status, x) },
    sort: { id: webhookDeliveries.id },
    id: webhookDeliveries.id,
  });

export class WebhooksService {
  private readonly db: Database;
  /** Whether endpoints may be loopback or private addresses (WEBHOOK_ALLOW_PRIVATE). */
  readonly allowPrivate: boolean;
  private readonly all;
  private readonly one;
  private readonly deliveryList: ReturnType<typeof deliveryList>;

  constructor({ db, allowPrivate }: { db: Database; allowPrivate: boolean }) {
    this.db = db;
    this.deliveryList = deliveryList(db.orm);
    this.allowPrivate = allowPrivate;
    this.all = db.orm.select(endpointColumns).from(webhookEndpoints).orderBy(webhookEndpoints.id).prepare('tc_webhooks');
    this.one = db.orm.select(endpointColumns).from(webhookEndpoints).where(eq(webhookEndpoints.id, p('id'))).prepare('tc_webhook');
  }

  /** 400 unless `url` is an absolute http(s) URL without credentials (and public, when required). */
  private checkUrl(url: string): string {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.webhooks.invalidUrl'), details: { field: 'url' } });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.webhooks.urlNotHttp'), details: { field: 'url' } });
    }
    if (parsed.username || parsed.password) {
      throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.webhooks.urlWithCredentials'), details: { field: 'url' } });
    }
    if (!this.allowPrivate) {
      const problem = privateHostProblem(parsed);
      if (problem) throw new AppError(E.VALIDATION_ERROR, { detail: msg('timeclock.webhooks.urlNotPublic', { problem }), details: { field: 'url' } });
    }
    return parsed.toString();
  }

  async create(input: Static<typeof CreateWebhookBody>, createdBy: number): Promise<Static<typeof WebhookWithSecret>> {
    const url = this.checkUrl(input.url);
    const secret = newSecret();
    const [row] = await this.db.orm
      .insert(webhookEndpoints)
      .values({ url, events: input.events, secret, description: input.description ?? '', isActive: input.is_active ?? true, createdBy })
      .returning(endpointColumns);
    return { ...endpointView(row!), secret };
  }

  async list(): Promise<Static<typeof WebhookRecord>[]> {
    const rows = await this.all.execute();
    return rows.map(endpointView);
  }

  async get(id: number): Promise<Static<typeof WebhookRecord>> {
    const [row] = await this.one.execute({ id });
    if (!row) throw notFound(id);
    return endpointView(row);
  }

  /** Partial update: fields left out keep their values. Reactivating wakes the dispatchers for waiting deliveries. */
  async update(id: number, patch: Static<typeof UpdateWebhookBody>): Promise<Static<typeof WebhookRecord>> {
    const url = patch.url === undefined ? undefined : this.checkUrl(patch.url);
    const [row] = await this.db.transaction(async (tx) => {
      const rows = await tx.orm
        .update(webhookEndpoints)
        .set({ url, events: patch.events, description: patch.description, isActive: patch.is_active, updatedAt: sql`now()` })
        .where(eq(webhookEndpoints.id, id))
        .returning(endpointColumns);
      if (rows[0]?.isActive && patch.is_active) await tx.orm.execute(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}::text, '')`);
      return rows;
    });
    if (!row) throw notFound(id);
    return endpointView(row);
  }

  /** Deletes the endpoint with its delivery log (pending deliveries are dropped). */
  async remove(id: number): Promise<void> {
    const rows = await this.db.orm.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id });
    if (rows.length === 0) throw notFound(id);
  }

  /** Replaces the signing secret; the new one is returned once. */
  async rotateSecret(id: number): Promise<Static<typeof WebhookWithSecret>> {
    const secret = newSecret();
    const [row] = await this.db.orm
      .update(webhookEndpoints)
      .set({ secret, updatedAt: sql`now()` })
      .where(eq(webhookEndpoints.id, id))
      .returning(endpointColumns);
    if (!row) throw notFound(id);
    return { ...endpointView(row), secret };
  }

  async deliveries(endpointId: number, q: Static<typeof DeliveriesQuery>): Promise<Static<typeof DeliveriesReply>> {
    await this.get(endpointId);
    const { rows, total } = await this.deliveryList.page({ endpoint_id: endpointId, status: q.status }, { page: q.page, page_size: q.limit, order_by: 'id:desc' });
    return { deliveries: rows.map(deliveryView), totalCount: total, currentPage: q.page, totalPages: Math.ceil(total / q.limit) };
  }

  /** Queues a new delivery of the same body to the same endpoint; the original stays in the log. */
  async resend(deliveryId: number): Promise<Static<typeof DeliveryRecord>> {
    return this.db.transaction(async (tx) => {
      const [original] = await tx.orm
        .select({ endpointId: webhookDeliveries.endpointId, event: webhookDeliveries.event, payload: webhookDeliveries.payload })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, deliveryId));
      if (!original) throw new AppError(E.NOT_FOUND, { detail: msg('timeclock.webhooks.deliveryNotFound', { deliveryId }), details: { deliveryId } });
      // Shared lock: the endpoint cannot be deactivated or deleted before the new delivery commits.
      const [endpoint] = await tx.orm
        .select({ isActive: webhookEndpoints.isActive })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, original.endpointId))
        .for('share');
      if (!endpoint?.isActive) {
        throw new AppError(E.CONFLICT, { detail: msg('timeclock.webhooks.endpointInactive'), details: { webhookId: original.endpointId } });
      }
      const [row] = await tx.orm
        .insert(webhookDeliveries)
        .values({ endpointId: original.endpointId, resendOf: deliveryId, event: original.event, payload: original.payload })
        .returning();
      await tx.orm.execute(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}::text, '')`);
      return deliveryView(row!);
    });
  }
}
