// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

const listPermissions = (query: ListQuery<'/api/admin/permissions'>) => unwrap(api.GET('/api/admin/permissions', { params: { query } }));
export const permissionsQuery = listQuery(['permissions'], listPermissions);
