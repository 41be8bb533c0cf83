// How dictionary types and items look in replies.
import { formatDisplay } from '../../../platform/time.ts';
import type { DictionaryRow } from '../../db/schema.ts';

export function renderDictionary(r: DictionaryRow, tz: string) {
  return {
    id: r.id,
    parent_id: r.parentId,
    name: r.name,
    code: r.code,
    value: r.value,
    description: r.description,
    status: r.status,
    sort: r.sort,
    created_at: formatDisplay(r.createdAt, tz)!,
    updated_at: formatDisplay(r.updatedAt, tz)!,
  };
}
