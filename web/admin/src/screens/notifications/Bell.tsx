// Placeholder until the notification bell is built: nothing in the header yet.
export function NotificationBell() {
  return null;
}
