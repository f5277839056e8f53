import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/coverage/**', '**/node_modules/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
    },
  },
  {
    // No agent-controlled text may meet a backtracking regular expression on the server's event loop
    // (issue 26 §2): tool output, observations, file contents, tool arguments, test logs and model answers
    // all reach these functions. Every literal must be linear (no quantifiers that can trade characters,
    // no quadratic rescans from each start); a pattern built at run time escapes the check, so it needs an
    // eslint-disable with the reason it is linear (user patterns go through re2js, a linear-time engine).
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['NewExpression', 'CallExpression'].map((type) => ({
          selector: `${type}[callee.name='RegExp'][arguments.0.type!='Literal']`,
          message: 'A RegExp built at run time escapes the ReDoS check: use a literal, a scan, or re2js (linear time) for patterns from outside.',
        })),
      ],
    },
  },
  {
    // The viewer's page script runs in the browser and renders model output: text nodes only.
    files: ['packages/viewer/src/client/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'srcdoc'].map((property) => ({ property, message: 'Build elements with h() and text nodes: trajectories are hostile.' })),
        { object: 'document', property: 'write', message: 'Build elements with h() and text nodes.' },
      ],
      'no-restricted-globals': ['error', { name: 'eval', message: 'No eval in the page.' }],
      'no-new-func': 'error',
    },
  },
);
