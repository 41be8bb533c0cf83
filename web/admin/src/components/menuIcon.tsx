// The icon a menu entry names (the `icon` of the menu data, as the Menus screen edits it), drawn
// with @ant-design/icons. Only the icons named here are bundled (importing the whole set would add
// about a megabyte): the names the seeded menus use, and a few common ones offered in the Menus
// screen. An unknown or empty name draws a default, so that a collapsed sidebar never shows an
// entry without a picture.
import {
  ApartmentOutlined, AppstoreOutlined, BarChartOutlined, BellOutlined, BookOutlined, BugOutlined, CloudServerOutlined,
  CloudUploadOutlined, CreditCardOutlined, DashboardOutlined, DatabaseOutlined, DesktopOutlined, EditOutlined, FileOutlined,
  FileTextOutlined, FolderOutlined, FundOutlined, GlobalOutlined, HomeOutlined, KeyOutlined, LockOutlined, LoginOutlined, MailOutlined,
  MenuOutlined, MessageOutlined, MoneyCollectOutlined, ProfileOutlined, SafetyOutlined, SettingOutlined, ShoppingOutlined,
  TeamOutlined, ToolOutlined, UnorderedListOutlined, UserOutlined, WifiOutlined,
} from '@ant-design/icons';
import type { ComponentType } from 'react';

export const MENU_ICONS: Record<string, ComponentType<{ 'aria-hidden'?: boolean }>> = {
  // The seeded menus' names.
  dashboard: DashboardOutlined, setting: SettingOutlined, user: UserOutlined, peoples: TeamOutlined, 'tree-table': MenuOutlined,
  lock: LockOutlined, tree: ApartmentOutlined, dict: BookOutlined, shield: SafetyOutlined, shopping: ShoppingOutlined,
  list: UnorderedListOutlined, money: MoneyCollectOutlined, form: CreditCardOutlined, log: FileTextOutlined, edit: EditOutlined,
  logininfor: LoginOutlined, bug: BugOutlined, monitor: FundOutlined, online: WifiOutlined, server: CloudServerOutlined,
  upload: CloudUploadOutlined, message: MessageOutlined, key: KeyOutlined,
  // A few more for menus an administrator adds.
  home: HomeOutlined, bell: BellOutlined, mail: MailOutlined, file: FileOutlined, folder: FolderOutlined, chart: BarChartOutlined,
  global: GlobalOutlined, tool: ToolOutlined, database: DatabaseOutlined, profile: ProfileOutlined, desktop: DesktopOutlined,
  team: TeamOutlined, appstore: AppstoreOutlined,
};

/** The icon for `name`; a directory (type 1) without a known icon gets a folder, a screen a tile. */
export function menuIcon(name: string | undefined, type: number) {
  const Icon = MENU_ICONS[name ?? ''] ?? (type === 1 ? FolderOutlined : AppstoreOutlined);
  // Decoration beside the entry's title: the entry is named by its title alone ("Dashboard", not "dashboard Dashboard").
  return <Icon aria-hidden />;
}
