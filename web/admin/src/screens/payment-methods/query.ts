// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const listMethods = (query: ListQuery<'/api/admin/payment-methods'>) => unwrap(api.GET('/api/admin/payment-methods', { params: { query } }));
export const paymentMethodsQuery = listQuery(['payment-methods'], listMethods);
