// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const notificationsQuery = listQuery(['notifications', 'list'], (query: ListQuery<'/api/admin/notifications'>) => unwrap(api.GET('/api/admin/notifications', { params: { query } })));
