// How every list's table is laid out, from a 390 px phone to a wide desk screen:
//  - columns take the width their content needs (no fixed layout: a tag, a name or an id is never
//    cut or run into the next column), and a row stays on one line;
//  - below 1600 px, the columns a screen marks `detail` leave the table for the row's detail
//    (the expand button at the start of the row), so that a 1440 px window shows every column
//    without scrolling sideways;
//  - on a phone (narrower than 768 px), the table scrolls sideways inside its card, the Actions
//    column is no longer pinned to the right (pinned, it covered all the rest), and the columns
//    a screen marks `key` come first.
import { Descriptions, Grid, type TableColumnsType, type TableProps } from 'antd';
import type { ReactNode } from 'react';

export type ListColumn<T> = TableColumnsType<T>[number] & {
  /** Shown in the row's detail rather than as a column, below 1600 px. */
  detail?: boolean;
  /** One of the columns a phone shows first. */
  first?: boolean;
};

type Layout<T> = Pick<TableProps<T>, 'columns' | 'scroll' | 'tableLayout' | 'expandable'>;

function valueOf<T>(column: ListColumn<T>, row: T, index: number): ReactNode {
  const dataIndex = 'dataIndex' in column ? column.dataIndex : undefined;
  const value = typeof dataIndex === 'string' || typeof dataIndex === 'number' ? (row as Record<string, unknown>)[dataIndex] : undefined;
  if ('render' in column && column.render) return column.render(value, row, index) as ReactNode;
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/**
 * A long text column (a path, a user agent, a message): cut at its width with an ellipsis, the
 * whole text on hover. (antd's `ellipsis` needs a fixed table layout, which cut everything else.)
 */
function clipped<T>(column: ListColumn<T>): ListColumn<T> {
  const max = typeof column.width === 'number' ? column.width : 240;
  return {
    ...column,
    ellipsis: false,
    width: undefined,
    render: (value: unknown, row: T, index: number) => {
      const shown = 'render' in column && column.render ? (column.render(value, row, index) as ReactNode) : (value as ReactNode);
      return <div className="cell-clip" style={{ maxWidth: max }} title={typeof value === 'string' ? value : undefined}>{shown || '—'}</div>;
    },
  };
}

/** The layout of one list's table: `table(columns)` gives the Table's columns, scroll and detail. */
export function useListTable() {
  const screens = Grid.useBreakpoint();
  const wide = screens.xxl ?? (typeof window !== 'undefined' && window.innerWidth >= 1600);
  const phone = screens.md === undefined ? typeof window !== 'undefined' && window.innerWidth < 768 : !screens.md;
  /** `tree`: the table shows a tree (its expander is the tree's): columns marked `detail` are left out below 1600 px (they are in the row's form). */
  return function table<T>(columns: ListColumn<T>[], options: { tree?: boolean } = {}): Layout<T> {
    // The content sets a column's width (a given width would be a minimum, which made tables overflow).
    const strip = ({ detail: _detail, first: _first, ...c }: ListColumn<T>) => (c.ellipsis ? clipped(c) : { ...c, width: undefined }) as TableColumnsType<T>[number];
    const hidden = wide ? [] : columns.filter((c) => c.detail);
    let shown = columns.filter((c) => wide || !c.detail);
    if (phone) shown = [...shown.filter((c) => c.first), ...shown.filter((c) => !c.first)].map((c) => ({ ...c, fixed: undefined }));
    return {
      columns: shown.map(strip),
      tableLayout: 'auto',
      scroll: { x: 'max-content' },
      ...(hidden.length > 0 && !options.tree ? {
        expandable: {
          expandedRowRender: (row: T, index: number) => (
            <Descriptions
              size="small"
              column={phone ? 1 : Math.min(hidden.length, 3)}
              items={hidden.map((c, i) => ({ key: String(c.key ?? i), label: c.title as ReactNode, children: valueOf(c, row, index) }))}
            />
          ),
        },
      } : {}),
    };
  };
}
