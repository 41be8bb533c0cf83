import { Type } from 'typebox';
import { DisplayTime } from '../../../platform/http/schemas.ts';
import { Body, Envelope } from '../../http.ts';

const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0')], { description }));
const IdString = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: `${description} (an integer id, as a string)` }));

/** The contract's administrator export request: every field an optional string. */
export const AdminExportBody = Body({
  username: Type.Optional(Type.String({ maxLength: 64, description: 'fuzzy' })),
  status: Flag('"1" enabled, "0" disabled'),
  role_id: IdString('administrators holding this role'),
  department_id: IdString('administrators of this department'),
  is_2fa_bound: Flag('"1" authenticator bound, "0" not bound'),
  start_time: Type.Optional(DisplayTime('created from (inclusive)')),
  end_time: Type.Optional(DisplayTime('created until (inclusive)')),
  order_by: Type.Optional(Type.String({
    enum: ['id:asc', 'id:desc'],
    description: 'row order of the file: `id:asc` (default) or `id:desc` (exports are read by keyset on id)',
  })),
});

const Time = (description: string) => Type.Union([Type.String({ description: `${description}, YYYY-MM-DD HH:mm:ss` }), Type.Null()]);

export const ExportTaskRecord = Type.Object({
  id: Type.Integer({ description: 'export record id' }),
  kind: Type.String({ description: 'what is exported, e.g. `admins`' }),
  status: Type.String({
    enum: ['pending', 'processing', 'completed', 'failed', 'expired'],
    description: 'pending → processing → completed | failed; a completed file past expires_at is `expired` (deleted)',
  }),
  rows_written: Type.Integer(),
  created_at: Type.String({ description: 'YYYY-MM-DD HH:mm:ss' }),
  finished_at: Time('when it completed or failed'),
  expires_at: Time('when the file stops being downloadable'),
  download_url: Type.Union([Type.String(), Type.Null()], { description: 'set while the file can be downloaded (same bearer token)' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed' }),
});

export const ExportTaskReply = Envelope(ExportTaskRecord);
