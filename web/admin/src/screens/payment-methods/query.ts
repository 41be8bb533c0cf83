// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap } from '../../api/client.ts';
import { listQuery } from '../../components/listParams.ts';

export const listMethods = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/payment-methods', { params: { query: query as never } }));
export const paymentMethodsQuery = listQuery(['payment-methods'], listMethods);
