// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap } from '../../api/client.ts';
import { listQuery } from '../../components/listParams.ts';

export const listAdmins = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/admins', { params: { query: query as never } }));
export const adminsQuery = listQuery(['admins'], listAdmins);
