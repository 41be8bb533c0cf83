// The time-clock app's service worker (built into dist/sw.js by vite.config.ts, which fills in
// PRECACHE with every file of the build). The app shell opens without a network: the build's
// files are cached on install; navigations are answered from the network and, when it fails,
// from the cached index.html; hashed assets from the cache first. The API is never cached: punches
// made offline are kept by the app itself (IndexedDB) and sent when the network returns.
const PRECACHE = self.__PRECACHE__;
const VERSION = self.__VERSION__;
const CACHE = `clock-shell-${VERSION}`;
const SCOPE = new URL(self.registration.scope).pathname; // /clock/

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((file) => SCOPE + file)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('clock-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE)) return;
  if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(() => caches.match(SCOPE + 'index.html', { cacheName: CACHE }).then((r) => r ?? Response.error())));
    return;
  }
  event.respondWith(caches.match(request, { cacheName: CACHE }).then((hit) => hit ?? fetch(request)));
});
