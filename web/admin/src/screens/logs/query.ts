// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

export const listLogins = (query: ListQuery<'/api/admin/logs/login'>) => unwrap(api.GET('/api/admin/logs/login', { params: { query } }));
export const loginLogsQuery = listQuery(['logs', 'login'], listLogins);

export const listSystem = (query: ListQuery<'/api/admin/logs/system'>) => unwrap(api.GET('/api/admin/logs/system', { params: { query } }));
export const systemLogsQuery = listQuery(['logs', 'system'], listSystem);
