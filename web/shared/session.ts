// The signed-in session of a tab, for both clients: held in memory only, never in localStorage or
// sessionStorage (a script that gets into the page finds no token that outlives it); a reload gets
// a token back from the HttpOnly refresh cookie the server set at sign-in. Kept in localStorage:
// what the client needs to know that there is a session to restore (no secret: a flag, or who is
// signed in), and why the last session ended, for the sign-in page. Tabs tell each other a new
// session or its end over a BroadcastChannel, and a new tab asks the open ones for the session
// before it uses the refresh cookie (`fromPeers`): a refresh rotates the token, and the other
// tabs' requests still on their way with the old one would be refused. `keepFresh` refreshes
// the token before it expires.

type Listener<S> = (session: S | null) => void;
type Message<S, R> = { type: 'session'; session: S } | { type: 'end'; reason: R | null } | { type: 'ask' };

export interface StoreOptions<S> {
  /** The prefix of the storage keys and of the channel (`fieldops.admin`). */
  prefix: string;
  /** The key (after the prefix) of what is kept of a session, and what is kept (no secret). */
  kept: { key: string; of: (session: S) => string };
  /** The session a new page starts with, from what was kept (none: no session until a sign-in or a restore). */
  restore?: (kept: string) => S | null;
  /** Whether another tab's session replaces this one (default: always). */
  adopt?: (current: S | null, incoming: S) => boolean;
}

export function sessionStore<S, R extends string>(options: StoreOptions<S>) {
  const keptKey = `${options.prefix}.${options.kept.key}`;
  const reasonKey = `${options.prefix}.ended`;
  const storage = typeof localStorage === 'undefined' ? null : localStorage;
  // Where earlier versions kept the token: removed on start.
  storage?.removeItem(`${options.prefix}.session`);
  const channel = typeof window !== 'undefined' && typeof BroadcastChannel !== 'undefined' ? new BroadcastChannel(`${options.prefix}.session`) : null;
  const listeners = new Set<Listener<S>>();
  // Every tab with a session holds a shared Web Lock of this name (where the browser has Web
  // Locks: secure contexts), so that a new tab knows whether there is one to ask.
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  const presence = `${options.prefix}.has-session`;
  let release: (() => void) | null = null;
  function present(has: boolean): void {
    if (!locks || has === (release !== null)) return;
    if (has) {
      const held = new Promise<void>((resolve) => (release = resolve));
      void locks.request(presence, { mode: 'shared' }, () => held);
    } else {
      release!();
      release = null;
    }
  }

  const keptValue = () => storage?.getItem(keptKey) ?? null;
  let current: S | null = (() => {
    const kept = keptValue();
    return kept !== null && options.restore ? options.restore(kept) : null;
  })();

  function apply(session: S | null): void {
    current = session;
    present(session !== null);
    for (const l of listeners) l(session);
  }

  function setSession(session: S | null, reason?: R): void {
    if (session) {
      storage?.setItem(keptKey, options.kept.of(session));
      storage?.removeItem(reasonKey);
    } else {
      storage?.removeItem(keptKey);
      if (reason) storage?.setItem(reasonKey, reason);
    }
    apply(session);
    channel?.postMessage((session ? { type: 'session', session } : { type: 'end', reason: reason ?? null }) satisfies Message<S, R>);
  }

  // Another tab signed in, refreshed the token, or signed out.
  channel?.addEventListener('message', (e: MessageEvent<Message<S, R>>) => {
    const m = e.data;
    if (m.type === 'ask') {
      if (current) channel.postMessage({ type: 'session', session: current } satisfies Message<S, R>);
    } else if (m.type === 'session') {
      if (!options.adopt || options.adopt(current, m.session)) apply(m.session);
    } else if (current) {
      apply(null);
    }
  });

  present(current !== null);

  /**
   * The session of another open tab, asked for over the channel (null: no tab has one, or none
   * answered within `waitMs`). Adopted like any session another tab tells.
   */
  async function fromPeers(waitMs: number): Promise<S | null> {
    if (current || !channel || !locks) return current;
    const { held = [] } = await locks.query();
    if (!held.some((lock) => lock.name === presence)) return null;
    return new Promise((resolve) => {
      const done = (session: S | null) => {
        clearTimeout(timer);
        listeners.delete(adopted);
        resolve(session);
      };
      const adopted: Listener<S> = (session) => session && done(session);
      const timer = setTimeout(() => done(null), waitMs);
      listeners.add(adopted);
      channel.postMessage({ type: 'ask' } satisfies Message<S, R>);
    });
  }

  return {
    getSession: (): S | null => current,
    fromPeers,
    setSession,
    /** What this browser keeps of its session (null: none to restore). */
    kept: keptValue,
    /** Why the last session ended, until the next sign-in (a reload of the sign-in page still says it). */
    endReason: (): R | null => (storage?.getItem(reasonKey) ?? null) as R | null,
    onSessionChange: (listener: Listener<S>): (() => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type SessionStore<S, R extends string> = ReturnType<typeof sessionStore<S, R>>;

/**
 * Refreshes the token of `store`'s session `delay(session)` ms after it changes (null: not now);
 * `refresh` may answer a number of ms after which to try again (offline, rate limited). Returns
 * the function that stops it.
 */
export function keepFresh<S, R extends string>(
  store: SessionStore<S, R>,
  delay: (session: S) => number | null,
  refresh: (session: S) => Promise<number | void>,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const at = (ms: number, session: S) => {
    timer = setTimeout(() => void refresh(session).then((again) => {
      if (typeof again === 'number' && store.getSession() === session) at(again, session);
    }), Math.min(ms, 2 ** 31 - 1));
  };
  const schedule = (session: S | null) => {
    clearTimeout(timer);
    const ms = session ? delay(session) : null;
    if (session && ms !== null) at(ms, session);
  };
  const stop = store.onSessionChange(schedule);
  schedule(store.getSession());
  return () => {
    stop();
    clearTimeout(timer);
  };
}
