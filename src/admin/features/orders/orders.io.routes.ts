// CSV import and export of orders: POST /orders/import (multipart `file`, streamed, see
// orders.import.ts) with GET /orders/import/sample and GET /orders/import/{id}/rejected (the
// rows an import refused, see orders.rejects.ts), POST /orders/export (an `orders` task on the
// shared export queue, see orders.export.ts) and GET /orders/export/status/{id}; the file is
// downloaded from GET /exports/{id}/download like every export. Multipart parsing is registered
// here only.
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../../platform/http/errors.ts';
import type { FeatureOptions } from '../../context.ts';
import { E } from '../../errors.ts';
import { multipartParserError } from '../../multipart.ts';
import { Body, Envelope, ErrorEnvelope, IdParam, ok } from '../../http.ts';
import { EXPORT_MANAGE, ExportTaskReply, renderExportTask, visibleExportTask } from '../../kernel/export-tasks.ts';
import { CSV_BOM, csvLine } from '../../../platform/jobs/csv.ts';
import { Periodic } from '../../../platform/jobs/periodic.ts';
import { ORDER_CSV_COLUMNS, ORDER_IMPORT_SAMPLE, REJECTED_REASON_COLUMN, REQUIRED_IMPORT_COLUMNS } from './orders.csv.ts';
import { EXPORT_MAX_MONTHS, orderExportParams, ordersExportKind, ORDERS_EXPORT_KIND } from './orders.export.ts';
import { IMPORT_ERRORS_SHOWN, importOrders, OrderImportStopped, renderSummary, type OrderImportSummary } from './orders.import.ts';
import { OrderImports } from './orders.rejects.ts';
import { OrderExportQuery } from './orders.schema.ts';
import { Msg, msg } from '../../../platform/i18n.ts';
import { localeOf } from '../../../platform/http/conventions.ts';

const FILE_FIELD = 'file';
/** Room for the multipart boundaries and part headers around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** How often old imports and their rejected rows are purged. */
const PURGE_EVERY_MS = 60 * 60_000;

const ImportSummary = Type.Object({
  id: Type.Integer({ description: 'the import’s id, under which its rejected rows are kept (`GET /orders/import/{id}/rejected`)' }),
  total: Type.Integer({ description: 'data rows read (the header not counted)' }),
  succeeded: Type.Integer({ description: 'orders created' }),
  failed: Type.Integer({ description: 'rows not imported: invalid rows and duplicates' }),
  duplicates: Type.Integer({ description: 'rows skipped because their request_id exists already or appears earlier in the file (counted in failed)' }),
  errors: Type.Array(Type.Object({
    row: Type.Integer({ description: 'position of the record in the file; the header is row 1' }),
    request_id: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String(),
  }), { description: `the first ${IMPORT_ERRORS_SHOWN} problems by row` }),
  errors_truncated: Type.Boolean({ description: `true when there were more than ${IMPORT_ERRORS_SHOWN} problems` }),
  rejected_url: Type.Union([Type.String(), Type.Null()], {
    description: 'where to download every refused row as a CSV to fix and import again (`GET /orders/import/{id}/rejected`); null when no row was refused',
  }),
});

const CSV_LAYOUT = [
  `Columns: \`${ORDER_CSV_COLUMNS.join(',')}\`, one order per record, its products as a JSON array`,
  '(`[{"product_id":1,"product_name":"Tea","price":12.5,"quantity":2}]`); times `YYYY-MM-DD HH:mm:ss` in the display time zone.',
  'UTF-8 with a byte-order mark, CRLF line ends. Text cells starting with `=`, `+`, `-`, `@`, tab or CR carry a leading `\'` against',
  'formula injection; the import removes it, so an exported file re-imports into the same orders.',
].join(' ');

export const orderIoRoutes: FastifyPluginAsyncTypebox<FeatureOptions> = async (app, { ctx }) => {
  const { platform } = ctx;
  const { config, db } = platform;
  const tz = config.DISPLAY_TIMEZONE;
  const tasks = ctx.exports;
  tasks.register(ORDERS_EXPORT_KIND, ordersExportKind(db, tz));
  const prefix = app.prefix;
  const maxBytes = config.ORDER_IMPORT_MAX_BYTES;
  const imports = new OrderImports(db);
  const keepHours = config.ORDER_IMPORT_KEEP_HOURS;
  const rejectedPath = (id: number) => `${prefix}/orders/import/${id}/rejected`;

  // Imports older than ORDER_IMPORT_KEEP_HOURS go with their rejected rows: at start-up, then hourly.
  const purger = new Periodic({
    everyMs: PURGE_EVERY_MS,
    logger: platform.logger,
    failure: 'purging old order imports failed',
    task: async () => {
      const deleted = await imports.purge(keepHours);
      if (deleted > 0) platform.logger.info({ deleted, hours: keepHours }, 'old order imports purged');
    },
  });
  app.addHook('onReady', async () => purger.start());
  app.addHook('onClose', async () => purger.stop());

  await app.register(multipart, { throwFileSizeLimit: false });

  app.post('/orders/import', {
    config: { permission: 'order.import' },
    schema: {
      tags: ['Orders'],
      summary: 'Import orders from a CSV file',
      description: [
        `multipart/form-data with one part, \`${FILE_FIELD}\`: the CSV. ${CSV_LAYOUT}`,
        `The header names the columns in any order; required: ${REQUIRED_IMPORT_COLUMNS.join(', ')}. Empty cells: \`order_no\` generated,`,
        '`status` pending, `created_at` now; `paid_at` only with `paid` (empty: now).',
        'Each row is checked with the rules of `POST /orders` (amount = Σ price × quantity to the cent); `request_id` is required, so that',
        'running the same file again skips the orders it created (they are reported as duplicates). Rows are written in batches of',
        '`ORDER_IMPORT_BATCH_ROWS`, each batch one transaction; the file is streamed, never held in memory.',
        'Refused before anything is written: not multipart (415, 30006); no `file` part, an empty file, a missing, unknown or repeated',
        'column (400, 30001); a file that is not CSV text (400, 30004). If the import stops half-way (CSV syntax error: 400 30004; larger',
        'than `ORDER_IMPORT_MAX_BYTES`: 413 30005; a database failure: 500 50002; the server shutting down: 503 50006 once the batch being',
        'written is committed), the message says how many orders were imported before the stop; those stay, and importing the same file',
        'again adds only the rest. The importer is also notified of the counts.',
        'The reply has the import’s `id` and, when rows were refused, `rejected_url`: every refused row (not only the first',
        `${IMPORT_ERRORS_SHOWN} listed in \`errors\`) as a CSV to fix and import again, kept ORDER_IMPORT_KEEP_HOURS (\`GET /orders/import/{id}/rejected\`;`,
        'the notification links to it too). A column named `error` (the one that file adds) is ignored.',
      ].join(' '),
      consumes: ['multipart/form-data'],
      response: { 200: Envelope(ImportSummary), 413: ErrorEnvelope, 415: ErrorEnvelope },
    },
    // Before any body is read: the wrong media type or an announced oversize file is refused at once.
    preParsing: async (request) => {
      const type = String(request.headers['content-type'] ?? '').toLowerCase();
      if (!type.startsWith('multipart/form-data')) {
        throw new AppError(E.UNSUPPORTED_MEDIA_TYPE, { detail: msg('admin.orders.multipartRequired', { FILE_FIELD }) });
      }
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length > maxBytes + MULTIPART_OVERHEAD) {
        throw new AppError(E.BODY_TOO_LARGE, { detail: msg('admin.orders.importLimit', { maxBytes }) });
      }
    },
  }, async (request, reply) => {
    let summary: OrderImportSummary | undefined;
    try {
      const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 1, fieldNameSize: 64, headerPairs: 20 } });
      for await (const part of parts) {
        if (part.type !== 'file' || part.fieldname !== FILE_FIELD) {
          throw new AppError(E.VALIDATION, { detail: msg('admin.orders.unexpectedPart', { FILE_FIELD, fieldname: part.fieldname.slice(0, 64) }) });
        }
        summary = await importOrders(part.file, {
          db, adminId: request.admin!.adminId, departmentId: request.admin!.scope.departmentId, logger: request.log, tz, batchRows: config.ORDER_IMPORT_BATCH_ROWS, signal: platform.stopping,
        });
        // Anything after the file part is not read.
        break;
      }
    } catch (err) {
      // The rest of the body was not read: end the connection with this response.
      if (!request.raw.complete) reply.header('Connection', 'close');
      if (err instanceof OrderImportStopped && err.summary.total > 0) {
        await ctx.notifications.notify(request.admin!.adminId, {
          kind: 'import',
          title: msg('admin.notifications.system.importStoppedTitle'),
          content: msg('admin.notifications.system.importStopped', {
            total: err.summary.total, succeeded: err.summary.succeeded, failed: err.summary.failed, reason: err.options.detail instanceof Msg ? err.options.detail : err.message,
          }),
        });
      }
      throw multipartParserError(err, () => msg('admin.orders.onlyFilePart', { FILE_FIELD }));
    }
    if (!summary) throw new AppError(E.VALIDATION, { detail: msg('admin.orders.filePartRequired', { FILE_FIELD }) });
    const rejected = summary.failed > 0 ? rejectedPath(summary.id) : null;
    // The reply has the result too; the notification reaches the administrator's other tabs and devices.
    await ctx.notifications.notify(request.admin!.adminId, {
      kind: 'import',
      title: msg('admin.notifications.system.importFinishedTitle'),
      content: msg('admin.notifications.system.importFinished', {
        total: summary.total, succeeded: summary.succeeded, failed: summary.failed, duplicates: summary.duplicates,
      }),
      ...(rejected ? { link: rejected, linkExpiresAt: new Date(Date.now() + keepHours * 3_600_000) } : {}),
    });
    return ok(request, { ...renderSummary(summary, localeOf(request)), rejected_url: rejected });
  });

  app.get('/orders/import/:id/rejected', {
    config: { permission: 'order.import' },
    schema: {
      tags: ['Orders'],
      summary: 'The rows an order import refused, as a CSV to fix and import again',
      description: [
        'Every row that `POST /orders/import` (reply `id`) refused, by row number: the columns of the import file, in its order, with each',
        `row's cells as sent, then a last column \`${REJECTED_REASON_COLUMN}\` with the reasons in the reader's language (\`Accept-Language\`).`,
        'A short row is padded with empty cells; a text cell that a spreadsheet would take for a formula gets the export\'s leading `\'`,',
        `which the import removes. The import ignores the \`${REJECTED_REASON_COLUMN}\` column, so the file, once fixed, imports again as it is`,
        '(rows refused as duplicates are skipped again). UTF-8 with a byte-order mark, CRLF line ends, sent as `text/csv` to download,',
        'named `orders-import-{id}-rejected.csv`; streamed, whatever the number of rows. An import without refused rows gives the header only.',
        'Only the administrator who ran the import may download it (another one: 403, 20001; the super administrator may); kept',
        'ORDER_IMPORT_KEEP_HOURS after the import finished, then, like an unknown id or an import that stopped, 404 (30003).',
      ].join(' '),
      params: IdParam,
      response: { 200: Type.Unsafe({ type: 'string', format: 'binary', description: 'the rejected rows (text/csv)' }), 404: ErrorEnvelope },
    },
  }, async (request, reply) => {
    const { id } = request.params;
    const caller = request.admin!;
    const imp = await imports.get(id);
    if (!imp || !imp.finishedAt) throw new AppError(E.DATA_NOT_FOUND, { detail: msg('admin.orders.importNotFound', { id, hours: keepHours }) });
    if (imp.adminId !== caller.adminId && !caller.isSuper) throw new AppError(E.NO_PERMISSION, { detail: msg('admin.orders.importOfAnother', { id }) });
    const name = `orders-import-${id}-rejected.csv`;
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${name}"; filename*=UTF-8''${name}`)
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(Readable.from(imports.csv(imp, localeOf(request))));
  });

  const sample = Buffer.from(CSV_BOM + csvLine(ORDER_CSV_COLUMNS) + csvLine(ORDER_CSV_COLUMNS.map((c) => ORDER_IMPORT_SAMPLE[c])));
  app.get('/orders/import/sample', {
    config: { permission: 'order.import' },
    schema: {
      tags: ['Orders'],
      summary: 'A sample CSV file for the order import',
      description: [
        'The header with every column and one example order that `POST /orders/import` accepts as it is (the optional columns left empty:',
        '`order_no` generated, `status` pending, `created_at` now). Importing it twice reports the second as a duplicate (same `request_id`).',
        `Sent as \`text/csv\` (UTF-8 with a byte-order mark) to download, named \`orders-import-sample.csv\`. ${CSV_LAYOUT}`,
      ].join(' '),
      response: { 200: Type.Unsafe({ type: 'string', format: 'binary', description: 'the sample CSV file (text/csv)' }) },
    },
  }, async (_request, reply) => reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', 'attachment; filename="orders-import-sample.csv"')
    .header('Cache-Control', 'no-store')
    .header('X-Content-Type-Options', 'nosniff')
    .send(sample));

  app.post('/orders/export', {
    config: { permission: 'order.export' },
    schema: {
      tags: ['Orders'],
      summary: 'Export orders to CSV',
      description: [
        'Queues an export task with the list filters (query string, no paging) and returns it (`download_url` null).',
        `The time range (on created_at) is at most ${EXPORT_MAX_MONTHS} months; without start_time and end_time it is the last ${EXPORT_MAX_MONTHS} months,`,
        `with only one of them ${EXPORT_MAX_MONTHS} months from (or up to) it.`,
        'Poll `GET /orders/export/status/{id}` until `status` is `completed`, then download from `download_url`', `(\`GET /exports/{id}/download\`). ${CSV_LAYOUT}`,
      ].join(' '),
      querystring: OrderExportQuery,
      body: Body({}),
      response: { 200: ExportTaskReply },
    },
    // No body is expected; none at all is an empty one.
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, async (request) => {
    const params = orderExportParams(request.query, tz, request.admin!.scope);
    const task = await tasks.create(ORDERS_EXPORT_KIND, { ...params }, request.admin!.adminId);
    return ok(request, { ...renderExportTask(tasks, task, prefix, tz), download_url: null });
  });

  app.get('/orders/export/status/:id', {
    config: { auth: 'self' },
    schema: {
      tags: ['Orders'],
      summary: 'Status of an order export',
      description: [
        'Status (`pending`, `processing`, `completed`, `failed`; `expired` once the file is deleted), `rows_written` and, when the file is ready,',
        `\`download_url\`. Its creator and holders of \`${EXPORT_MANAGE}\` may read it (otherwise 403, 20001); an id that is not an order export is 404 (30003).`,
        'A task left `processing` by a crashed instance is retried (3 attempts in all), then marked `failed`.',
      ].join(' '),
      params: IdParam,
      response: { 200: ExportTaskReply, 404: ErrorEnvelope },
    },
  }, async (request) => {
    const task = await visibleExportTask(db, tasks, request.admin!, request.params.id, ORDERS_EXPORT_KIND);
    return ok(request, renderExportTask(tasks, task, prefix, tz));
  });
};
