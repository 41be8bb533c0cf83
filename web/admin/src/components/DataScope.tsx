// Data scopes in words (docs/API.md, "Data scopes"), for the roles and administrators screens: a
// role's scope (`all`, `department_and_below`, `department`, `custom` over its departments,
// `self`) and an administrator's effective one (every row, the departments reached, or their own
// rows only). Departments are named from the department tree, which both screens read through
// `departmentTree` (one query, one cache); many of them show as the first few and "+N". In a
// list, a scope is the second line of a cell (under a role's grants, under an administrator's
// roles), so that a 1440 px window still shows every column.
import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Body } from '../api/client.ts';

/** What a role's `data_scope` may be, and the departments of a `custom` one (the request body's types). */
export type ScopeFields = Required<Pick<Body<'/api/admin/roles', 'post'>, 'data_scope' | 'department_ids'>>;
export type DataScopeKind = ScopeFields['data_scope'];
export const DATA_SCOPES: readonly DataScopeKind[] = ['all', 'department_and_below', 'department', 'custom', 'self'];

/** The department tree (GET /departments, unfiltered), as the side panel and the pickers read it. */
export const departmentTree = {
  queryKey: ['departments'] as const,
  queryFn: () => unwrap(api.GET('/api/admin/departments', { params: { query: {} } })),
};
export type DepartmentNode = Awaited<ReturnType<typeof departmentTree.queryFn>>['list'][number];

/** Every department's name by its id, in the tree's order (a parent before its children). */
export function departmentNames(nodes: readonly DepartmentNode[], into = new Map<number, string>()): Map<number, string> {
  for (const d of nodes) {
    into.set(d.id, d.name);
    departmentNames(d.children, into);
  }
  return into;
}

/** How many department names are shown before "+N". */
const FEW = 2;

/**
 * A scope as tags: every row ("All data"), the departments named (the first few, then "+N" with
 * the others in its tooltip), or, reaching no department, the holder's own rows only.
 */
export function ScopeTags({ all, departmentIds, names }: { all: boolean; departmentIds: readonly number[]; names: ReadonlyMap<number, string> | undefined }) {
  const { t } = useTranslation();
  if (all) return <Tag color="blue">{t('dataScope.all')}</Tag>;
  if (departmentIds.length === 0) return <Tag>{t('dataScope.self')}</Tag>;
  // In the tree's order; before the tree has come (or without the right to read it), counted.
  const reached = new Set(departmentIds);
  const named = [...(names ?? [])].filter(([id]) => reached.has(id)).map(([, name]) => name);
  if (named.length === 0) return <Tag color="geekblue">{t('dataScope.departments', { count: departmentIds.length })}</Tag>;
  const shown = named.length > FEW + 1 ? named.slice(0, FEW) : named;
  const rest = named.slice(shown.length);
  return (
    // (.tag-row, styles.css: tags side by side on no text baseline, so that two lines of them fit a row.)
    <span className="tag-row">
      {shown.map((n, i) => <Tag key={i} color="geekblue">{n}</Tag>)}
      {rest.length > 0 && (
        <Tooltip title={t('dataScope.more', { count: rest.length, list: rest.join(', ') })}>
          <Tag aria-label={t('dataScope.more', { count: rest.length, list: rest.join(', ') })}>+{rest.length}</Tag>
        </Tooltip>
      )}
    </span>
  );
}

/** A role's scope in words (a list's shorter ones); a `custom` one names its departments. */
export function RoleScope({ scope, departmentIds, names }: { scope: DataScopeKind; departmentIds: readonly number[]; names: ReadonlyMap<number, string> | undefined }) {
  const { t } = useTranslation();
  if (scope === 'custom') return <ScopeTags all={false} departmentIds={departmentIds} names={names} />;
  const words = scope === 'department_and_below' ? t('dataScope.departmentAndBelowShort') : t(`dataScope.${scope}`);
  return <Tag color={scope === 'all' ? 'blue' : scope === 'self' ? undefined : 'geekblue'}>{words}</Tag>;
}
