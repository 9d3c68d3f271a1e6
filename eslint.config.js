import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// What one workspace may import of another: its package name and the subpaths its package.json
// `exports` declares (`@gsp/x`, `@gsp/x/testing`), never its files, by a relative path or by name.
const WORKSPACE_BOUNDARIES = [
  {
    group: ['../**/services/*/**', '../**/packages/*/**', '../**/scripts/**', '../**/deploy/**'],
    message: 'import another workspace by its @gsp/* package name, not by a relative path',
  },
  {
    group: ['@gsp/*/src', '@gsp/*/src/**', '@gsp/*/test', '@gsp/*/test/**', '@gsp/*/dist', '@gsp/*/dist/**'],
    message:
      "import what the workspace's package.json exports (`@gsp/x`, `@gsp/x/testing`), not its files; " +
      'see docs/development.md',
  },
];

// The test kit (Playwright, Chromium, oidc-provider) is a dev dependency: a service's or a page's code never loads it.
const NO_TEST_KIT = {
  group: ['@gsp/test-kit', '@gsp/test-kit/**'],
  message: '@gsp/test-kit is for tests and benches only, not for code a service or a page runs',
};

// service-kit is every service's toolkit: a product's contract is passed in, never imported.
const NO_PRODUCT_CONTRACT = {
  group: ['@gsp/platform-contract', '@gsp/platform-contract/**'],
  message: 'service-kit takes no product contract: move the general rule here, or take the product one as an option',
};

// A page (an app's src/) is bundled for the browser: only browser-safe modules of other workspaces, never a
// service's code or test pieces. Its tests reach a service through the service's `.` and `./testing`.
const PAGE_IMPORTS = {
  regex: '^@gsp/(?!ui(/|$)|platform-contract/(identifiers|text)$|service-kit/text$|[a-z-]+/contract$)',
  message:
    'a page imports only browser-safe modules: @gsp/ui, @gsp/platform-contract/identifiers or /text, ' +
    "@gsp/service-kit/text, a service's ./contract",
};

// A page's layers (bulletproof-react): shared code (`lib/`, `components/`...) -> `features/<name>/` -> `app/`.
// Imports flow one way, and a feature does not import another feature: what two features need is shared.
const layerOf = (srcDir, file) => {
  const [top, name] = relative(srcDir, file).split(sep);
  if (name === undefined && top?.startsWith('main.')) return { rank: 3, name: 'the entry point' };
  if (top === 'app') return { rank: 2, name: 'app/' };
  if (top === 'features' && name !== undefined) return { rank: 1, name: `features/${name}/` };
  return { rank: 0, name: 'shared code' };
};
const featureBoundaries = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = context.filename;
    const at = file.lastIndexOf(`${sep}src${sep}`);
    if (at === -1) return {};
    const srcDir = file.slice(0, at + 4);
    const from = layerOf(srcDir, file);
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = resolve(dirname(file), source);
      if (relative(srcDir, target).startsWith('..')) return;
      const to = layerOf(srcDir, target);
      if (to.rank > from.rank || (to.rank === 1 && from.rank === 1 && to.name !== from.name))
        context.report({
          node: node.source,
          message:
            `${from.name} may not import ${to.name}: ` +
            'imports flow from shared code to features to app/, and features do not import each other',
        });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

const restrict = (...patterns) => ['error', { patterns: [...WORKSPACE_BOUNDARIES, ...patterns] }];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.data/**', '**/gen/**', '.tap/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
        AbortSignal: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        Request: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // Prettier wraps code at 120 columns but not strings, template literals or comments: split those by hand.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
      'no-restricted-imports': restrict(),
    },
  },
  {
    files: ['packages/*/src/**', 'services/*/src/**'],
    rules: { 'no-restricted-imports': restrict(NO_TEST_KIT) },
  },
  {
    files: ['packages/web-console/src/**', 'packages/gameserver-panel/src/**'],
    plugins: { pages: { rules: { 'feature-boundaries': featureBoundaries } }, 'react-hooks': reactHooks },
    rules: {
      'no-restricted-imports': restrict(NO_TEST_KIT, PAGE_IMPORTS),
      'pages/feature-boundaries': 'error',
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['packages/ui/src/**'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['packages/service-kit/**'],
    rules: { 'no-restricted-imports': restrict(NO_TEST_KIT, NO_PRODUCT_CONTRACT) },
  },
);
