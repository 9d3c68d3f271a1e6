import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const controlPlane = process.env.CONTROL_PLANE_URL ?? 'http://127.0.0.1:8080';

export default defineConfig(({ command }) => ({
  // Relative asset URLs, so the same build works under /panel/ and behind any path prefix. The dev
  // server serves the page at /panel/ too, so the page's relative URLs resolve as in production.
  base: command === 'serve' ? '/panel/' : './',
  plugins: [react()],
  resolve: {
    // Workspace packages (@gsp/ui, @gsp/platform-contract/identifiers) are bundled from their
    // TypeScript sources, as tsx runs them, so the page builds without their dist/.
    conditions: ['@gsp/source', ...defaultClientConditions],
    // @gsp/ui's sources resolve react from the repository root, where test tooling may hoist another
    // major; one copy of React in the bundle, this package's.
    dedupe: ['react', 'react-dom'],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A strict CSP forbids inline script: never inline the module preload polyfill or small assets.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': { target: controlPlane, changeOrigin: false, ws: true },
      '/panel/auth': { target: controlPlane, changeOrigin: false },
    },
  },
}));
