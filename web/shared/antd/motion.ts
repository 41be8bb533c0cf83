// Someone who asks their system for less motion (prefers-reduced-motion: reduce) gets the screens
// without antd's zooms, slides and fades: dialogs, drawers, menus and messages appear at once.
// (The browser tests ask for it too: a step no longer waits for an animation to end.)
import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-reduced-motion: reduce)';

function subscribe(changed: () => void): () => void {
  const media = window.matchMedia(QUERY);
  media.addEventListener('change', changed);
  return () => media.removeEventListener('change', changed);
}

/** The antd theme token that turns its animations off when the reader's system asks for less motion. */
export function useMotionToken(): { motion: boolean } {
  return { motion: !useSyncExternalStore(subscribe, () => window.matchMedia(QUERY).matches) };
}
