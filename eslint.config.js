// Type-aware lint: the rules that catch real bugs in async server code, and the layer
// boundaries of docs/ARCHITECTURE.md.
import tseslint from 'typescript-eslint';

// Layer boundaries, on the import specifiers (every import in src/ is relative):
// - the platform imports no service;
// - a service imports the platform and itself, never the other service (src/server.ts, src/main.ts
//   and src/cli/ see both);
// - a feature (src/<service>/features/<name>/, one flat folder) imports its own files, its
//   service's kernel and root modules (schema, errors, http, context) and the platform, never
//   another feature: not a sibling folder (`../<other>/`) nor through `features/`;
// - a kernel imports no feature.
// A block's `no-restricted-imports` replaces an earlier one's for the same files, so each block
// repeats its service's rule.
const restricted = (...patterns) => ['error', { patterns }];
const notService = (name) => ({ regex: `(^|/)${name}/`, message: `Only src/server.ts, src/main.ts and src/cli/ see both services: do not import ${name}/ here (docs/ARCHITECTURE.md).` });
const notSiblingFeature = { regex: '^\\.\\./[^./][^/]*/', message: 'A feature does not import another feature: move what both need into the service\'s kernel, or hand it in at construction (docs/ARCHITECTURE.md).' };
const notFeatures = (who) => ({ regex: '(^|/)features/', message: `${who} does not import a feature's files: move what is shared into the service's kernel, or hand it in at construction (docs/ARCHITECTURE.md).` });
const boundaries = [
  { files: ['src/platform/**/*.ts'], rules: { 'no-restricted-imports': restricted({ regex: '(^|/)(admin|timeclock)/', message: 'The platform imports no service (docs/ARCHITECTURE.md).' }) } },
  ...[['admin', 'timeclock'], ['timeclock', 'admin']].flatMap(([service, other]) => [
    { files: [`src/${service}/**/*.ts`], rules: { 'no-restricted-imports': restricted(notService(other)) } },
    { files: [`src/${service}/features/*/*.ts`], rules: { 'no-restricted-imports': restricted(notService(other), notSiblingFeature, notFeatures('A feature')) } },
    { files: [`src/${service}/kernel/**/*.ts`], rules: { 'no-restricted-imports': restricted(notService(other), notFeatures('The kernel')) } },
  ]),
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**', 'scratch/**', 'web/*/dist/**', 'web/*/src/api/schema.gen.ts'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, properties: false } }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  ...boundaries,
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['eslint.config.js', 'web/*/sw/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
