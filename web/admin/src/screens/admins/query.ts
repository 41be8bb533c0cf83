// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { listQuery } from '../../../../shared/list/params.ts';
import { api, unwrap, type ListQuery } from '../../api/client.ts';

export const adminsQuery = listQuery(['admins'], (query: ListQuery<'/api/admin/admins'>) => unwrap(api.GET('/api/admin/admins', { params: { query } })));
