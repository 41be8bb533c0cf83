// The screens' list queries, shared with the screen registry (which starts them with the navigation).
import { api, unwrap, type ListQuery } from '../../api/client.ts';
import { listQuery } from '../../../../shared/list/params.ts';

const listOperations = (query: ListQuery<'/api/admin/logs/operation'>) => unwrap(api.GET('/api/admin/logs/operation', { params: { query } }));
export const operationLogsQuery = listQuery(['logs', 'operation'], listOperations);

const listLogins = (query: ListQuery<'/api/admin/logs/login'>) => unwrap(api.GET('/api/admin/logs/login', { params: { query } }));
export const loginLogsQuery = listQuery(['logs', 'login'], listLogins);

const listSystem = (query: ListQuery<'/api/admin/logs/system'>) => unwrap(api.GET('/api/admin/logs/system', { params: { query } }));
export const systemLogsQuery = listQuery(['logs', 'system'], listSystem);
