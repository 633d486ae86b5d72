import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Where `npm start` (or the container) listens; the dev server sends the service's paths there.
const BFF = process.env.BFF_URL ?? 'http://localhost:8080';

// The service's paths, proxied as they are: the browser sees one origin (this dev server's), so the
// session cookie and the CSRF header work as they will in production behind one host.
//
// changeOrigin stays false (Vite's default). The service compares a request's Origin with the host the
// request came to: with changeOrigin: true the proxy rewrites Host to the service's own (localhost:8080)
// while the browser's Origin stays http://localhost:5173, and every login or query is refused 403
// csrf_rejected "Origin not allowed". If a proxy must rewrite Host, list the dev server's origin in the
// service's ALLOWED_ORIGINS (ALLOWED_ORIGINS=http://localhost:5173) instead.
const service = { target: BFF, changeOrigin: false };

export default defineConfig({
  plugins: [react()],
  server: {
    port: Number(process.env.PORT ?? 5173),
    strictPort: true,
    proxy: { '/auth': service, '/api': service },
  },
  build: { outDir: 'dist', assetsDir: 'assets' },
});
