// The dictionaries' requests: the types (parent_id 0) and the items of the chosen type, whose
// list keeps in the URL, besides the path's own filters, the screen's choice of type (`type`) and
// the types' search and page (`type_name`, `type_page`), which are not sent with the items.
import { listQuery } from '../../../../shared/list/params.ts';
import { api, unwrap, type ListQuery } from '../../api/client.ts';

type Query = ListQuery<'/api/admin/dictionaries'>;
/** The items' list in the URL: the path's query and the types' column. */
export type ItemsQuery = Query & { type?: string; type_name?: string; type_page?: string };

export const listDictionaries = (query: Query) => unwrap(api.GET('/api/admin/dictionaries', { params: { query } }));

export const itemsQuery = listQuery(['dictionaries', 'items'], ({ type, type_name: _name, type_page: _page, ...query }: ItemsQuery) =>
  listDictionaries({ ...query, parent_id: Number(type), order_by: query.order_by ?? 'sort:asc' }));
