/// <reference types="node" />
// The administration console: built into dist/ and served by the server at `/`; in development
// (`npm run dev:admin`) Vite serves it with hot reload and passes /api (WebSocket included) to
// the server at API_TARGET (default http://127.0.0.1:3000).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const target = process.env.API_TARGET ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed names under assets/: the server caches them for a year.
    assetsDir: 'assets',
    chunkSizeWarningLimit: 2000,
  },
  server: {
    port: 5173,
    proxy: { '/api': { target, changeOrigin: true, ws: true } },
  },
});
