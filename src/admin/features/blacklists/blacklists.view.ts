// How blacklist rules look in replies.
import { displayStamps } from '../../../platform/time.ts';
import type { BlacklistRow } from './blacklists.service.ts';

export function renderBlacklist(r: BlacklistRow, tz: string) {
  return {
    id: r.id,
    ip: r.ip,
    remark: r.remark,
    status: r.status,
    ...displayStamps(r, tz),
  };
}
