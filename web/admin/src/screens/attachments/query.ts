// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { listQuery } from '../../../../shared/list/params.ts';
import { api, unwrap, type ListQuery } from '../../api/client.ts';

export const attachmentsQuery = listQuery(['attachments'], (query: ListQuery<'/api/admin/attachments'>) => unwrap(api.GET('/api/admin/attachments', { params: { query } })));
