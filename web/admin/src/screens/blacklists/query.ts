// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { listQuery } from '../../../../shared/list/params.ts';
import { api, unwrap, type ListQuery } from '../../api/client.ts';

export const blacklistsQuery = listQuery(['blacklists'], (query: ListQuery<'/api/admin/blacklists'>) => unwrap(api.GET('/api/admin/blacklists', { params: { query } })));
