// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const listPayments = (query: ListQuery<'/api/admin/payments'>) => unwrap(api.GET('/api/admin/payments', { params: { query } }));
export const paymentsQuery = listQuery(['payments'], listPayments);
