// A tree resource's screen (departments, menus): the tree as a tree table with its filters in the
// URL, expand and collapse all, create at the top or under a node, edit, a sort box and a status
// switch in the row, delete (the server refuses a node that still has children, and says so).
// The screen gives its columns, its form and its permissions; the rest is here.
import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { Button, Card, InputNumber, Popconfirm, Space, Switch, Table } from 'antd';
import { useMemo, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { filterQuery, type FiltersOf } from '../list/params.ts';
import { useListParams } from '../list/useList.ts';
import { QueryError, useAction } from './feedback.tsx';
import { ListFilters, type Column } from './ListView.tsx';
import { useListTable } from './listTable.tsx';

export interface TreeNode {
  id: number;
  parent_id: number;
  status: number;
  sort: number;
  children: TreeNode[];
}
/** A row of the tree table: leaves carry no `children` (so that they show no expander). */
export type TreeRow<N extends TreeNode> = Omit<N, 'children'> & { children?: TreeRow<N>[] };

const rowsOf = <N extends TreeNode>(nodes: N[]): TreeRow<N>[] =>
  nodes.map(({ children, ...n }) => (children.length ? { ...n, children: rowsOf(children as N[]) } : n));
const idsOf = (nodes: { id: number; children?: unknown[] }[]): number[] => nodes.flatMap((n) => [n.id, ...idsOf((n.children ?? []) as typeof nodes)]);

export function findIn<R extends { id: number; children?: R[] }>(nodes: R[], id: number): R | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const hit = findIn(n.children ?? [], id);
    if (hit) return hit;
  }
  return undefined;
}

export interface ParentOption { value: number; title: string; disabled?: boolean; children: ParentOption[] }
/** Parent choices under a top-level "none": a node cannot go under itself or its descendants; `holds` says which nodes take children. */
export function parentOptions<R extends { id: number; children?: R[] }>(root: string, nodes: R[], titleOf: (r: R) => string, exclude: number | undefined, holds: (r: R) => boolean = () => true): ParentOption[] {
  const of = (rows: R[], inside: boolean): ParentOption[] => rows.filter(holds).map((n) => {
    const off = inside || n.id === exclude;
    return { value: n.id, title: titleOf(n), disabled: off, children: of(n.children ?? [], off) };
  });
  return [{ value: 0, title: root, children: [] }, ...of(nodes, false)];
}

export interface Editing<R> { row: R | null; parentId: number }

export function TreeScreen<N extends TreeNode, Q>({ name, queryKey, load, columns, tail, labelOf, can, holdsChildren, update, remove, deleteHint, invalidates, form }: {
  /** Names the filter form (`<name>-filters`). */
  name: string;
  queryKey: string;
  /** The tree for the filters (as the URL has them: a query string is text). */
  load: (query: FiltersOf<Q>) => Promise<{ list: N[] }>;
  /** The columns before sort, status and actions; their filters make the form. */
  columns: Column<TreeRow<N>, Q>[];
  /** The columns after sort and status, before the actions. */
  tail?: Column<TreeRow<N>, Q>[];
  /** How a row is named (in the buttons' labels and the delete confirmation). */
  labelOf: (row: TreeRow<N>) => string;
  can: { create: boolean; update: boolean; delete: boolean };
  holdsChildren?: (row: TreeRow<N>) => boolean;
  update: (row: TreeRow<N>, body: { status?: number; sort?: number }) => Promise<unknown>;
  remove: (row: TreeRow<N>) => Promise<unknown>;
  deleteHint: string;
  /** Other queries a change makes stale (the signed-in administrator's own menu). */
  invalidates?: readonly QueryKey[];
  form: (editing: Editing<TreeRow<N>>, rows: TreeRow<N>[], onClose: () => void) => ReactNode;
}) {
  const { t } = useTranslation();
  const table = useListTable();
  const run = useAction();
  const queryClient = useQueryClient();
  const list = useListParams<Q>();
  const f = list.filters;
  const [editing, setEditing] = useState<Editing<TreeRow<N>> | null>(null);
  const [expanded, setExpanded] = useState<readonly Key[] | null>(null);
  const tree = useQuery({ queryKey: [queryKey, f], queryFn: () => load(filterQuery<Q>(f)), placeholderData: keepPreviousData });
  const rows = useMemo(() => rowsOf(tree.data?.list ?? []), [tree.data]);
  const allIds = useMemo(() => idsOf(rows), [rows]);
  const refresh = () => {
    for (const key of [[queryKey], ...(invalidates ?? [])]) void queryClient.invalidateQueries({ queryKey: key });
  };
  const change = (r: TreeRow<N>, body: { status?: number; sort?: number }) => void run(() => update(r, body), t('kit:state.saved')).then(refresh);

  const all: Column<TreeRow<N>, Q>[] = [
    ...columns,
    {
      title: t('kit:field.sort'), dataIndex: 'sort', width: 100,
      render: (v: number, r) => (can.update
        ? <InputNumber size="small" precision={0} defaultValue={v} aria-label={`${t('kit:field.sort')} ${labelOf(r)}`} style={{ width: 80 }}
            key={`${r.id}:${v}`} onBlur={(e) => { const n = Number(e.target.value); if (Number.isInteger(n) && n !== v) change(r, { sort: n }); }} />
        : v),
    },
    {
      title: t('kit:field.status'), dataIndex: 'status', width: 80,
      render: (s: number, r) => (
        <Switch size="small" checked={s === 1} aria-label={`${t('kit:field.status')} ${labelOf(r)}`} disabled={!can.update} onChange={(on) => change(r, { status: on ? 1 : 0 })} />
      ),
    },
    ...(tail ?? []),
    {
      title: t('kit:field.actions'), key: 'actions', fixed: 'right', width: 210,
      render: (_: unknown, r) => (
        <Space size={0}>
          {can.create && (holdsChildren?.(r) ?? true) && (
            <Button type="link" size="small" aria-label={`${t('kit:action.addChild')} ${labelOf(r)}`} onClick={() => setEditing({ row: null, parentId: r.id })}>{t('kit:action.addChild')}</Button>
          )}
          {can.update && (
            <Button type="link" size="small" aria-label={`${t('kit:action.edit')} ${labelOf(r)}`} onClick={() => setEditing({ row: r, parentId: r.parent_id })}>{t('kit:action.edit')}</Button>
          )}
          {can.delete && (
            <Popconfirm title={t('kit:state.confirmDelete', { name: labelOf(r) })} description={deleteHint} onConfirm={() => void run(() => remove(r), t('kit:state.deleted')).then(refresh)}>
              <Button type="link" size="small" danger aria-label={`${t('kit:action.delete')} ${labelOf(r)}`}>{t('kit:action.delete')}</Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  return (
    <Card>
      <ListFilters name={`${name}-filters`} columns={all} list={list} />
      <div className="list-toolbar">
        <Space>
          {can.create && <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ row: null, parentId: 0 })}>{t('kit:action.create')}</Button>}
        </Space>
        <Space>
          <Button onClick={() => setExpanded(allIds)}>{t('kit:action.expandAll')}</Button>
          <Button onClick={() => setExpanded([])}>{t('kit:action.collapseAll')}</Button>
        </Space>
      </div>
      {tree.error ? <QueryError error={tree.error} onRetry={() => void tree.refetch()} /> : (
        <Table<TreeRow<N>>
          rowKey="id"
          loading={tree.isFetching}
          dataSource={rows}
          pagination={false}
          expandable={{ expandedRowKeys: expanded ?? allIds, onExpandedRowsChange: (keys) => setExpanded(keys) }}
          locale={{ emptyText: list.filtered ? t('kit:state.emptyFiltered') : t('kit:state.empty') }}
          {...table<TreeRow<N>>(all.filter((c) => !c.hideInTable).map(({ filter: _f, hideInTable: _h, sort: _s, ...c }) => c), { tree: true })}
        />
      )}
      {editing && form(editing, rows, () => { setEditing(null); refresh(); })}
    </Card>
  );
}


