// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

const listRoles = (query: ListQuery<'/api/admin/roles'>) => unwrap(api.GET('/api/admin/roles', { params: { query } }));
export const rolesQuery = listQuery(['roles'], listRoles);
