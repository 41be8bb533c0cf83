// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap } from '../../api/client.ts';
import { listQuery } from '../../components/listParams.ts';

export const listRoles = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/roles', { params: { query: query as never } }));
export const rolesQuery = listQuery(['roles'], listRoles);
