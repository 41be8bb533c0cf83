import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import './i18n/index.ts';
import './styles.css';

// /clock (no slash) is outside the service worker's scope and the router's basename: the app
// lives at /clock/.
if (location.pathname === '/clock') history.replaceState(history.state, '', `/clock/${location.search}${location.hash}`);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The service worker caches the app shell so that the app opens without a network (built apps
// only: the development server serves fresh files).
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => void navigator.serviceWorker.register('/clock/sw.js', { scope: '/clock/' }).catch(() => undefined));
}
