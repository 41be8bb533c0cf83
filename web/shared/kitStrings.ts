// The words of the kit's own screens and messages (namespace `kit`), which each client gives in
// its own wording (addStrings('kit', …)), so that a screen built on the kit reads like the rest.
export interface KitStrings {
  state: { error: string; done: string; saved: string; deleted: string; empty: string; emptyFiltered: string; confirmDelete?: string; /** `{{count}}` rows selected. */ selected?: string;
    /** A list whose count stopped at `{{total}}` (the server's LIST_COUNT_LIMIT): more rows match. */ capped?: string };
  action: {
    search: string; reset: string; retry: string; create: string; edit: string; delete: string; save: string; cancel: string;
    details?: string; addChild?: string; expandAll?: string; collapseAll?: string;
  };
  field?: { status: string; actions: string; sort: string };
  error: { network: string; forbidden?: string };
  /** A tree screen: a node without a parent. */
  tree?: { root: string };
}
