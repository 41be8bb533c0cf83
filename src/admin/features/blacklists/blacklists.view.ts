// How blacklist rules look in replies.
import { formatDisplay } from '../../../platform/time.ts';
import type { BlacklistRow } from './blacklists.service.ts';

export function renderBlacklist(r: BlacklistRow, tz: string) {
  return {
    id: r.id,
    ip: r.ip,
    remark: r.remark,
    status: r.status,
    created_at: formatDisplay(r.createdAt, tz)!,
    updated_at: formatDisplay(r.updatedAt, tz)!,
  };
}
