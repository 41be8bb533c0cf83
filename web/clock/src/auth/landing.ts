// Where sign-in leads: the page a signed-out visit was sent from (`?next=`), when it is safe.
import type { Role } from '../api/session.ts';

const BASE = 'http://app.invalid';

/**
 * Where to go after sign-in: `next` when it is a path of this app (relative to /clock/, as the
 * router writes it) in the role's own part (the console for a manager, the worker app for a
 * worker), else the role's home. Anything that could leave the app is refused (an open
 * redirect): absolute URLs, `//host`, backslashes, control characters, other schemes.
 */
export function landing(next: string | null, role: Role): string {
  const home = role === 'manager' ? '/manager' : '/';
  if (!next || !next.startsWith('/') || next.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(next)) return home;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return home;
  }
  if (url.origin !== BASE || url.pathname === '/login') return home;
  const inConsole = url.pathname === '/manager' || url.pathname.startsWith('/manager/');
  return inConsole === (role === 'manager') ? `${url.pathname}${url.search}${url.hash}` : home;
}
