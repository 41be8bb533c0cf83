// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const listOrders = (query: ListQuery<'/api/admin/orders'>) => unwrap(api.GET('/api/admin/orders', { params: { query } }));
export const ordersQuery = listQuery(['orders'], listOrders);
