import tseslint from 'typescript-eslint';
import layers from './scripts/lint/layers.mjs';

/** A file past this many lines has two jobs: split it. */
const MAX_LINES = 400;

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'bench/tmp/**'] },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    plugins: { layers, '@typescript-eslint': tseslint.plugin },
    rules: {
      'layers/imports': 'error',
      'layers/constructed-once': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/**/*.ts', 'webview/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
    // Registered for test/ too, so its eslint-disable comments name known rules.
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: { 'max-lines': ['error', { max: MAX_LINES }] },
  },
);
