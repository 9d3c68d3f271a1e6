import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiServer = process.env.API_SERVER_URL ?? 'http://127.0.0.1:8081';

export default defineConfig(({ command }) => ({
  // Relative asset URLs, so the same build works under /console/ and behind any path prefix. The dev
  // server serves the page at /console/ too, so the page's relative API URLs resolve as in production.
  base: command === 'serve' ? '/console/' : './',
  plugins: [react()],
  // Workspace packages (@gsp/platform-contract/identifiers, @gsp/ui) are bundled from their TypeScript
  // sources, as tsx runs them, so the page builds without their dist/.
  // @gsp/ui's components import react from its own folder: dedupe keeps one React in the bundle.
  resolve: { conditions: ['@gsp/source', ...defaultClientConditions], dedupe: ['react', 'react-dom'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A strict CSP forbids inline script: never inline the module preload polyfill or small assets.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': { target: apiServer, changeOrigin: false },
      '/console/auth': { target: apiServer, changeOrigin: false },
    },
  },
}));
