// Which menu entry a permission belongs to, and which permission a menu entry needs to show
// anything: the role editor keeps the two in step (a role granted a screen's permissions gets
// its menu entry, a role given a menu entry gets its list permission), so that no role leads to
// an empty console. Pure functions (tested without a browser).

export interface MenuRef { id: number; parent_id: number; slug: string; type: number }
export interface PermissionRef { id: number; slug: string; menu_id: number | null }

/**
 * The screen (a menu entry, type 2) a permission acts on: the entry named like the permission
 * (`log.operation` → `log-operation`), else the menu the permission is linked to when it is an
 * entry, else the entry named like its module (`order.list` → `order`).
 */
export function screenOf(p: PermissionRef, menus: readonly MenuRef[]): number | undefined {
  const entries = menus.filter((m) => m.type === 2);
  const exact = entries.find((m) => m.slug === p.slug.replace('.', '-'));
  if (exact) return exact.id;
  const linked = entries.find((m) => m.id === p.menu_id);
  if (linked) return linked.id;
  return entries.find((m) => m.slug === p.slug.split('.')[0])?.id;
}

/** The permission that lets a screen show its data: its `list` or `view`, or the one named like the screen. */
export function listPermissionOf(menuId: number, menus: readonly MenuRef[], permissions: readonly PermissionRef[]): number | undefined {
  const mine = permissions.filter((p) => screenOf(p, menus) === menuId);
  const menu = menus.find((m) => m.id === menuId);
  const action = (p: PermissionRef) => p.slug.slice(p.slug.indexOf('.') + 1);
  return (mine.find((p) => action(p) === 'list') ?? mine.find((p) => action(p) === 'view')
    ?? mine.find((p) => menu !== undefined && p.slug.replace('.', '-') === menu.slug))?.id;
}

/** `id` and the directories above it. */
export function withParents(id: number, menus: readonly MenuRef[]): number[] {
  const byId = new Map(menus.map((m) => [m.id, m]));
  const out: number[] = [];
  for (let m = byId.get(id); m && !out.includes(m.id); m = byId.get(m.parent_id)) out.push(m.id);
  return out;
}

/** The menus after permissions were added: every screen a new permission acts on, with its parents. */
export function menusForPermissions(added: readonly number[], menuIds: readonly number[], menus: readonly MenuRef[], permissions: readonly PermissionRef[]): number[] {
  const set = new Set(menuIds);
  for (const id of added) {
    const p = permissions.find((x) => x.id === id);
    const screen = p && screenOf(p, menus);
    if (screen !== undefined) for (const m of withParents(screen, menus)) set.add(m);
  }
  return menus.map((m) => m.id).filter((m) => set.has(m));
}

/** The permissions after menus were added: the list permission of every new screen. */
export function permissionsForMenus(added: readonly number[], permissionIds: readonly number[], menus: readonly MenuRef[], permissions: readonly PermissionRef[]): number[] {
  const set = new Set(permissionIds);
  for (const id of added) {
    const p = listPermissionOf(id, menus, permissions);
    if (p !== undefined) set.add(p);
  }
  return permissions.map((p) => p.id).filter((p) => set.has(p));
}

/**
 * What a role will see: the screens of its menus (in menu order), and the granted permissions
 * whose screen is not among them (reachable from no menu entry).
 */
export function roleView<M extends MenuRef, P extends PermissionRef>(permissionIds: readonly number[], menuIds: readonly number[], menus: readonly M[], permissions: readonly P[]) {
  const chosen = new Set(menuIds);
  const screens = menus.filter((m) => m.type === 2 && chosen.has(m.id));
  const granted = new Set(permissionIds);
  const unreachable = permissions.filter((p) => granted.has(p.id)).filter((p) => {
    const s = screenOf(p, menus);
    return s !== undefined && !chosen.has(s);
  });
  const empty = screens.filter((m) => listPermissionOf(m.id, menus, permissions) !== undefined && !permissions.some((p) => granted.has(p.id) && screenOf(p, menus) === m.id));
  return { screens, unreachable, empty };
}
