// One column spec drives a list screen's filter form and its table (as ant-design-pro's ProTable
// does): a column may declare a filter (text, select or date range, named after the path's typed
// query parameters) and a sort (one of the path's `order_by` fields), or be a filter only
// (`hideInTable`). The filters, sort and page live in the URL (useList; or in the component,
// `local`); the table takes the console's layout (listTable.tsx) or, with `cards`, becomes a list
// of cards at phone width.
// A form is searched with its button (or Enter); with `instant`, a choice (a select, a date)
// applies as soon as it is made, and a text when it is entered or cleared.
import { DatePicker, Form, Input, InputNumber, Select, Switch, Table, TreeSelect, type InputProps, type TableProps } from 'antd';
import type { RangePickerProps } from 'antd/es/date-picker';
import type { Rule } from 'antd/es/form';
import type { SorterResult } from 'antd/es/table/interface';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { FilterValues, FiltersOf, SortField, Untyped } from '../list/params.ts';
import type { ListState } from '../list/useList.ts';
import { DataList } from './DataList.tsx';
import { QueryError } from './feedback.tsx';
import { FilterButtons } from './FilterButtons.tsx';
import { useListTable, type ListColumn } from './listTable.tsx';

type Key<Q> = keyof FiltersOf<Q> & string;
/** The filters whose values are text (either end of a date range; a text box takes a number's text too). */
type TextKey<Q> = { [K in Key<Q>]-?: NonNullable<FiltersOf<Q>[K]> extends string ? K : never }[Key<Q>];

export type FilterSpec<Q> = { label?: ReactNode; /** Place in the form (default: the column's). */ order?: number } & (
  | {
    kind: 'text'; key: Key<Q>; max?: number; width?: number; rules?: Rule[]; inputMode?: InputProps['inputMode']; placeholder?: string;
    /** Filters whose change checks this one again (a maximum against its minimum). */
    dependencies?: Key<Q>[];
  }
  | { kind: 'number'; key: Key<Q>; min?: number; width?: number }
  /** One node of a tree (a menu, a department), by its numeric id. */
  | { kind: 'tree'; key: Key<Q>; treeData: TreeOption[]; width?: number }
  | {
    kind: 'select'; key: Key<Q>; options: { value: string | number; label: ReactNode }[]; width?: number; loading?: boolean; notFoundContent?: ReactNode;
    /** What the field says while empty (the server's default, say). */
    placeholder?: ReactNode;
    /** Options found by the server as the user types (a worker among thousands): `options` are its answer. */
    onSearch?: (text: string) => void;
    /** Several values, kept in the URL separated by commas. */
    multiple?: boolean;
  }
  /** One moment (from it on, say), kept as an ISO 8601 timestamp. */
  | { kind: 'date'; key: TextKey<Q>; showTime?: boolean }
  | {
    kind: 'dateRange'; keys: [TextKey<Q>, TextKey<Q>]; showTime?: boolean; format?: string;
    /** Either end may be left empty. */
    openEnded?: boolean;
    /**
     * The label of a switch beside the range: whole days (`YYYY-MM-DD`) when off, to the second
     * (`YYYY-MM-DD HH:mm:ss`) when on; on when the URL's dates carry a time.
     */
    timeSwitch?: ReactNode;
    /** Whole days, picked as dates: from the first day's 00:00:00 to the last day's 23:59:59. */
    wholeDays?: boolean;
    /** A hint under the range, the rules of its dates, the days the picker does not offer. */
    extra?: ReactNode;
    rules?: Rule[];
    disabledDate?: RangePickerProps['disabledDate'];
  }
);

export interface TreeOption { value: number; title: string; children: TreeOption[] }

export type Column<Row, Q = Untyped> = ListColumn<Row> & {
  filter?: FilterSpec<Q>;
  /** A filter only: not a column of the table. */
  hideInTable?: boolean;
  /** Sortable, by this `order_by` field. */
  sort?: SortField<Q>;
};

const TIME = 'YYYY-MM-DD HH:mm:ss';
const DAY = 'YYYY-MM-DD';
const keysOf = <Q,>(f: FilterSpec<Q>): string[] => (f.kind === 'dateRange' ? f.keys : [f.key]);

/** The filter form of `columns`, its values from the URL; a search sets them (and keeps those it has no field for). */
export function ListFilters<Row, Q>({ name, columns, list, extra, keep = [], instant }: {
  name?: string;
  columns: Column<Row, Q>[];
  list: Pick<ListState<Q, unknown>, 'filters' | 'setFilters'>;
  extra?: ReactNode;
  /** The filters a reset leaves (a choice made outside the form). */
  keep?: readonly Key<Q>[];
  /** Choices apply as they are made (see the top of this file). */
  instant?: boolean;
}) {
  const specs = columns
    .map((c, i) => ({ c, i, f: c.filter }))
    .filter((x): x is { c: Column<Row, Q>; i: number; f: FilterSpec<Q> } => x.f !== undefined)
    .sort((a, b) => (a.f.order ?? a.i) - (b.f.order ?? b.i));
  const raw = list.filters as Record<string, string | undefined>;
  const initial: Record<string, unknown> = {};
  for (const { f } of specs) {
    if (f.kind === 'dateRange') {
      const [from, to] = f.keys.map((k) => raw[k]);
      const parse = (d: string | undefined) => (d && dayjs(d).isValid() ? dayjs(d) : null);
      if (from || to) initial[f.keys.join('~')] = [parse(from), parse(to)];
      if (f.timeSwitch) initial[`${f.keys.join('~')}~time`] = [from, to].some((d) => d !== undefined && d.length > DAY.length);
    } else if (raw[f.key] !== undefined) {
      const text = raw[f.key]!;
      const valueOf = (part: string) => {
        const number = /^\d+$/.test(part) ? Number(part) : part;
        return f.kind === 'select' ? f.options.find((o) => String(o.value) === part)?.value ?? number : number;
      };
      initial[f.key] = f.kind === 'text' ? text : f.kind === 'date' ? dayjs(text)
        : f.kind === 'select' && f.multiple ? text.split(',').map(valueOf) : valueOf(text);
    }
  }
  const submit = (values: Record<string, unknown>) => {
    const inForm = new Set(specs.flatMap(({ f }) => keysOf(f)));
    const next: Record<string, string | number | null | undefined> = Object.fromEntries(Object.entries(raw).filter(([k]) => !inForm.has(k)));
    for (const { f } of specs) {
      if (f.kind === 'dateRange') {
        const range = values[f.keys.join('~')] as [Dayjs | null, Dayjs | null] | null | undefined;
        const format = f.timeSwitch ? (values[`${f.keys.join('~')}~time`] ? TIME : DAY) : f.format ?? TIME;
        next[f.keys[0]] = (f.wholeDays ? range?.[0]?.startOf('day') : range?.[0])?.format(format);
        next[f.keys[1]] = (f.wholeDays ? range?.[1]?.endOf('day') : range?.[1])?.format(format);
      } else if (f.kind === 'date') {
        next[f.key] = (values[f.key] as Dayjs | null | undefined)?.toISOString();
      } else if (f.kind === 'select' && f.multiple) {
        next[f.key] = (values[f.key] as (string | number)[] | undefined)?.join(',');
      } else {
        next[f.key] = values[f.key] as string | number | undefined;
      }
    }
    list.setFilters(next as FilterValues<Q>);
  };
  const texts = new Set<string>(specs.flatMap(({ f }) => (f.kind === 'text' || f.kind === 'number' ? [f.key] : [])));
  const applies = (values: Record<string, unknown>) => Object.entries(values).some(([k, v]) => !texts.has(k) || v === '' || v === undefined || v === null);
  return (
    <FilterForm name={name} key={JSON.stringify(raw)} initial={initial} onFinish={submit} applies={instant ? applies : undefined}>
      {specs.map(({ c, f }) => {
        const label = f.label ?? (c.title as ReactNode);
        const field: string = f.kind === 'dateRange' ? f.keys.join('~') : f.key;
        if (f.kind === 'text') {
          const rules = [...(f.max ? [{ max: f.max }] : []), ...(f.rules ?? [])];
          return (
            <Form.Item key={field} name={field} label={label} rules={rules.length > 0 ? rules : undefined} dependencies={f.dependencies}>
              <Input allowClear style={f.width ? { width: f.width } : undefined} inputMode={f.inputMode} placeholder={f.placeholder} />
            </Form.Item>
          );
        }
        if (f.kind === 'number') {
          return (
            <Form.Item key={field} name={field} label={label}>
              <InputNumber min={f.min} precision={0} style={{ width: f.width ?? 120 }} />
            </Form.Item>
          );
        }
        if (f.kind === 'tree') {
          return (
            <Form.Item key={field} name={field} label={label}>
              <TreeSelect allowClear style={{ width: f.width ?? 180 }} treeData={f.treeData} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
            </Form.Item>
          );
        }
        if (f.kind === 'select') {
          return (
            <Form.Item key={field} name={field} label={label}>
              <Select allowClear style={{ width: f.width ?? 120 }} options={f.options} loading={f.loading} notFoundContent={f.notFoundContent} placeholder={f.placeholder}
                mode={f.multiple ? 'multiple' : undefined} optionFilterProp={f.multiple ? 'label' : undefined}
                {...(f.onSearch ? { showSearch: true, filterOption: false, onSearch: f.onSearch } : {})} />
            </Form.Item>
          );
        }
        if (f.kind === 'date') {
          return (
            <Form.Item key={field} name={field} label={label}>
              <DatePicker showTime={f.showTime} />
            </Form.Item>
          );
        }
        return <DateRange key={field} field={field} label={label} spec={f} />;
      })}
      {extra}
      <FilterButtons onReset={() => list.setFilters(Object.fromEntries(keep.map((k) => [k, raw[k]])) as FilterValues<Q>)} />
    </FilterForm>
  );
}

/**
 * The filter form, made again (a new store) whenever the URL's filters change, so that it shows
 * them; `applies`: whether a change of values is searched at once.
 */
function FilterForm({ name, initial, onFinish, applies, children }: {
  name?: string;
  initial: Record<string, unknown>;
  onFinish: (values: Record<string, unknown>) => void;
  applies?: (changed: Record<string, unknown>) => boolean;
  children: ReactNode;
}) {
  const [form] = Form.useForm();
  return (
    <Form form={form} className="list-filters" name={name} layout="inline" initialValues={initial} onFinish={onFinish}
      onValuesChange={applies ? (changed: Record<string, unknown>) => applies(changed) && form.submit() : undefined}>
      {children}
    </Form>
  );
}

/** A date range filter, and the switch between whole days and times of day when it has one. */
function DateRange<Q>({ field, label, spec }: { field: string; label: ReactNode; spec: Extract<FilterSpec<Q>, { kind: 'dateRange' }> }) {
  const withTime = Form.useWatch<boolean | undefined>(`${field}~time`, Form.useFormInstance());
  return (
    <>
      <Form.Item name={field} label={label} extra={spec.extra} rules={spec.rules}>
        <DatePicker.RangePicker showTime={spec.timeSwitch ? withTime : spec.showTime} allowEmpty={spec.openEnded ? [true, true] : undefined} disabledDate={spec.disabledDate} />
      </Form.Item>
      {spec.timeSwitch && <Form.Item name={`${field}~time`} label={spec.timeSwitch} valuePropName="checked"><Switch size="small" /></Form.Item>}
    </>
  );
}

/** The sort order a column shows, from the list's `order_by`. */
const sortOrderOf = (orderBy: string | undefined, field: string) =>
  orderBy === `${field}:asc` ? 'ascend' as const : orderBy === `${field}:desc` ? 'descend' as const : null;

type TableRest<Row> = Omit<TableProps<Row>, 'columns' | 'dataSource' | 'loading' | 'pagination' | 'onChange'>;

/** A page of a list route's reply (`total_capped`: its count stopped at `total`). */
type Page<Row> = { list: readonly Row[]; total: number; total_capped?: boolean };

/** A page whose count stopped at its total (more rows match): what its pager says, and its rows. */
export const cappedPage = (t: TFunction, page: { list: readonly unknown[]; total: number; total_capped?: boolean } | undefined) =>
  page?.total_capped ? { words: t('kit:state.capped', { total: page.total.toLocaleString() }), rows: page.list.length } : undefined;

/**
 * A list screen's body: the filter form, the toolbar, and the rows (or the query's error with a
 * retry). The rows and the total are the list's page, when its query answers one; otherwise
 * (a tree, a list the screen shapes) `rows` is given, with `total` when it is paged.
 */
export function ListView<Row extends object, Q, T>({ list, columns, rows, total, name, keep, instant, toolbar, empty, emptyFiltered, cards, label, tree, table }: {
  list: ListState<Q, T>;
  columns: Column<Row, Q>[];
  /** The filter form's name. */
  name?: string;
  /** The filters the form's reset leaves. */
  keep?: readonly Key<Q>[];
  toolbar?: ReactNode;
  /** Choices in the filter form apply as they are made (see the top of this file). */
  instant?: boolean;
  /** What an empty list says when no filter is set (default: the kit's "nothing here yet"). */
  empty?: ReactNode;
  /** What it says when a filter is set (default: the kit's "nothing matches these filters"). */
  emptyFiltered?: ReactNode;
  /** Cards at phone width (DataList) rather than a table that scrolls sideways. */
  cards?: boolean;
  /** The cards' accessible name. */
  label?: string;
  tree?: boolean;
  table?: TableRest<Row>;
} & (T extends Page<Row> ? { rows?: undefined; total?: undefined } : { rows: readonly Row[]; total?: number })) {
  const { t } = useTranslation();
  const layout = useListTable();
  // Read only when no rows are given, that is when the props' type says the query answers a Page.
  const page = list.query.data as Page<Row> | undefined;
  const shown = columns
    .filter((c) => !c.hideInTable)
    .map(({ filter: _filter, hideInTable: _hide, sort, ...c }) => (sort ? { ...c, sorter: true, sortOrder: sortOrderOf(list.params.orderBy, sort) } : c) as ListColumn<Row>);
  const props: TableProps<Row> = {
    rowKey: 'id',
    ...table,
    loading: list.query.isFetching,
    dataSource: rows ?? page?.list ?? [],
    locale: { emptyText: list.filtered ? emptyFiltered ?? t('kit:state.emptyFiltered') : empty ?? t('kit:state.empty') },
    pagination: rows === undefined ? list.pagination(page?.total ?? 0, cappedPage(t, page)) : total === undefined ? false : list.pagination(total),
    onChange: (_p, _f, sorter) => {
      const s = sorter as SorterResult<Row>;
      const field = columns.find((c) => c.sort && 'dataIndex' in c && c.dataIndex === s.field)?.sort;
      const next = field && s.order ? `${field}:${s.order === 'ascend' ? 'asc' : 'desc'}` : undefined;
      if (next !== list.params.orderBy) list.setOrderBy(next as typeof list.params.orderBy);
    },
  };
  // Rendered again only when its columns or the URL's filters change (not when rows arrive), for a
  // screen whose columns stay the same objects.
  const { filters, setFilters } = list;
  const form = useMemo(() => columns.some((c) => c.filter) && <ListFilters name={name} columns={columns} list={{ filters, setFilters }} keep={keep} instant={instant} />,
    [name, columns, filters, setFilters, keep, instant]);
  return (
    <>
      {form}
      {toolbar && <div className="list-toolbar">{toolbar}</div>}
      {list.query.error ? <QueryError error={list.query.error} onRetry={() => void list.query.refetch()} />
        : cards ? <DataList<Row> {...props} columns={shown} aria-label={label} />
        : <Table<Row> {...props} {...layout<Row>(shown, { tree })} />}
    </>
  );
}
