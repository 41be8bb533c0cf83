// The worker's history and security status as last loaded, kept on the phone (localStorage, one
// entry per worker and screen), so that the screens show them at once and without a network,
// marked with the time they were loaded; the server's answer replaces them when it comes.
import { useEffect, useState } from 'react';

interface Saved<T> {
  /** When it was loaded, ISO 8601. */
  at: string;
  data: T;
}

const PREFIX = 'fieldops.clock.cache.';
const key = (kind: string, userId: number) => `${PREFIX}${userId}.${kind}`;

/** Forgets every kept copy (on signing out: the phone keeps nobody's history). */
export function forgetCached(): void {
  try {
    for (const k of Object.keys(localStorage)) if (k.startsWith(PREFIX)) localStorage.removeItem(k);
  } catch {
    // Storage unavailable: nothing was kept.
  }
}

function read<T>(kind: string, userId: number): Saved<T> | null {
  try {
    const raw = localStorage.getItem(key(kind, userId));
    const saved = raw ? (JSON.parse(raw) as Saved<T>) : null;
    return saved && typeof saved.at === 'string' && 'data' in saved ? saved : null;
  } catch {
    return null;
  }
}

function write<T>(kind: string, userId: number, data: T): void {
  try {
    localStorage.setItem(key(kind, userId), JSON.stringify({ at: new Date().toISOString(), data } satisfies Saved<T>));
  } catch {
    // Storage full or unavailable: the screen still shows what it loaded, only not offline later.
  }
}

export interface Cached<T> {
  /** What to show: the server's answer, or the copy kept on the phone; null: nothing yet. */
  data: T | null;
  /** When the copy shown was loaded (ISO 8601); null when `data` is the server's answer of now. */
  asOf: string | null;
  /** Why the server's answer did not come (shown with the copy, or alone when there is none). */
  error: unknown;
}

/**
 * `load(userId)`'s answer, kept as `kind` for this worker; the kept copy until it comes (or when it
 * fails). A new `reload` value loads it again (after a punch).
 */
export function useCached<T>(kind: string, userId: number, load: (userId: number) => Promise<T>, reload = 0): Cached<T> {
  const [state, setState] = useState<Cached<T>>(() => {
    const saved = read<T>(kind, userId);
    return { data: saved?.data ?? null, asOf: saved?.at ?? null, error: null };
  });
  useEffect(() => {
    let live = true;
    load(userId).then(
      (data) => {
        write(kind, userId, data);
        if (live) setState({ data, asOf: null, error: null });
      },
      (error: unknown) => {
        if (live) setState((s) => ({ ...s, error }));
      },
    );
    return () => {
      live = false;
    };
  }, [kind, userId, load, reload]);
  return state;
}
