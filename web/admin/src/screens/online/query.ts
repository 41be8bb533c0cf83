// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const onlineQuery = listQuery(['online'], (query: ListQuery<'/api/admin/online-admins'>) => unwrap(api.GET('/api/admin/online-admins', { params: { query } })));
