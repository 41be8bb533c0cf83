// How dictionary types and items look in replies.
import { displayStamps } from '../../../platform/time.ts';
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
    ...displayStamps(r, tz),
  };
}
