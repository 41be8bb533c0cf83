// The screen's list query, shared with the screen registry (which starts it with the navigation).
import { api, unwrap } from '../../api/client.ts';
import { listQuery } from '../../components/listParams.ts';

export const listLogins = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/logs/login', { params: { query: query as never } }));
export const loginLogsQuery = listQuery(['logs', 'login'], listLogins);

export const listSystem = (query: Record<string, string | number>) => unwrap(api.GET('/api/admin/logs/system', { params: { query: query as never } }));
export const systemLogsQuery = listQuery(['logs', 'system'], listSystem);
