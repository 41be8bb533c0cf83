/// <reference types="node" />
// The time-clock app (worker app and manager console): built into dist/ and served by the server
// at /clock/; in development (`npm run dev:clock`) Vite serves it with hot reload and passes /api
// to the server at API_TARGET (default http://127.0.0.1:3000). The service worker (sw/sw.js) is
// emitted as dist/sw.js with the list of every file of the build to cache for offline use.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const target = process.env.API_TARGET ?? 'http://127.0.0.1:3000';

function serviceWorker(): Plugin {
  return {
    name: 'clock-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = ['index.html', 'manifest.webmanifest', 'icon.svg', 'icon-192.png', 'icon-512.png',
        ...Object.keys(bundle).filter((f) => f !== 'index.html' && !f.endsWith('.map'))].sort();
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
      const source = readFileSync(path.join(import.meta.dirname, 'sw/sw.js'), 'utf8')
        .replace('self.__PRECACHE__', JSON.stringify([...new Set(files)]))
        .replace('self.__VERSION__', JSON.stringify(version));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/clock/',
  plugins: [react(), serviceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed names under assets/: the server caches them for a year.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 2000,
  },
  server: {
    port: 5174,
    proxy: { '/api': { target, changeOrigin: true } },
  },
});
