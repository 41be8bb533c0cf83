// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap } from '../../api/client.ts';
import { listQuery } from '../../components/listParams.ts';

export const listRules = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/blacklists', { params: { query: query as never } }));
export const blacklistsQuery = listQuery(['blacklists'], listRules);
