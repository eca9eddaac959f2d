// Lint: typescript-eslint's recommended rules plus the house rules from DESIGN.md
// (data flows kube → informer → render; informer, sim and wire use Node built-ins only).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeOnly = {
  patterns: [
    { group: ['@kubernetes/*', 'undici', 'ink', 'react', 'ora', 'cli-table3', 'yaml', 'cborg', '@oclif/*'], message: 'src/informer and src/sim use Node built-ins only' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '.stryker-tmp/**', 'reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/informer/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...nodeOnly, patterns: [...nodeOnly.patterns, { group: ['**/commands/*', '**/render/*', '**/kube/*', '**/sim/*', '**/cli/*'], message: 'informer imports nothing from commands, render, kube or sim' }] }],
    },
  },
  {
    files: ['src/sim/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...nodeOnly, patterns: [...nodeOnly.patterns, { group: ['**/informer/*', '**/kube/*', '**/render/*', '**/commands/*', '**/cli/*'], message: 'the sim shares no code with the client' }] }],
    },
  },
  {
    // What the sim and the endpoint share; bundled into the sim's file, so it imports neither side.
    files: ['src/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...nodeOnly, patterns: [...nodeOnly.patterns, { group: ['**/sim/*', '**/endpoint/*', '**/informer/*', '**/kube/*', '**/render/*', '**/commands/*', '**/cli/*', '**/reconcile/*', '**/faults/*'], message: 'src/wire is shared by the sim and the endpoint: it imports from neither, nor from the client' }] }],
    },
  },
  {
    // kube accepts YAML request bodies; the sim reads them with the yaml package here, and only here.
    files: ['src/sim/yaml-body.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: nodeOnly.patterns[0].group.filter((g) => g !== 'yaml'), message: nodeOnly.patterns[0].message }, { group: ['**/informer/*', '**/kube/*', '**/render/*', '**/commands/*', '**/cli/*'], message: 'the sim shares no code with the client' }] }],
    },
  },
  {
    // CBOR (KEP-4222, behind the CBORServingAndStorage gate) is encoded with cborg here, and only here.
    files: ['src/sim/cbor-wire.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: nodeOnly.patterns[0].group.filter((g) => g !== 'cborg'), message: nodeOnly.patterns[0].message }, { group: ['**/informer/*', '**/kube/*', '**/render/*', '**/commands/*', '**/cli/*'], message: 'the sim shares no code with the client' }] }],
    },
  },
  {
    files: ['src/render/**/*.ts', 'src/render/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/commands/*', '**/kube/*', '**/sim/*'], message: 'render never does I/O beyond writing to its stream' }] }],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', 'bench/**/*.js', 'examples/**/*.{js,mjs,cjs}', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', performance: 'readonly', Buffer: 'readonly', AbortController: 'readonly' } },
  },
  {
    // bin/ is CommonJS (bin/package.json): a run starts no ES module loader (scripts/bundle/bin-entry-bundle.js).
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
