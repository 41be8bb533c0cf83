// System notifications as the features that raise them see it (a password reset, a session
// ended by someone else): the notifications feature implements `Notifier` and app.ts hands it
// to those features at construction, so that none of them imports the notifications feature.
import type { Msg } from '../../platform/i18n.ts';

/** What a notification says; `kind` tells a client where it came from. */
export interface NewNotification {
  /** A `Msg` (system events) is rendered in each reader's language; a string is shown as written. */
  title: string | Msg;
  content: string | Msg;
  kind?: NotificationKind;
  /** The administrator who sent it; null or absent for system events. */
  senderId?: number | null;
  /** The API path the notification points at (an export's download). */
  link?: string | null;
  /** When `link` stops working. */
  linkExpiresAt?: Date | null;
}

export const NOTIFICATION_KINDS = ['message', 'export', 'import', 'session', 'security', 'system'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface Notifier {
  /** Tells existing administrators among `adminIds`; never throws (failures are logged). */
  notify(adminIds: number | readonly number[], message: NewNotification): Promise<unknown>;
}
