// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'test-results/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message: 'Only the Kubernetes layer (tools/kube/) imports @kubernetes/client-node.',
            },
            {
              name: 'commander',
              message:
                'Only the command line (cli/) imports commander; libraries take plain options objects.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Kubernetes layer is the one place allowed to talk to client-node.
    files: ['tools/kube/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'commander',
              message:
                'Only the command line (cli/) imports commander; libraries take plain options objects.',
            },
          ],
        },
      ],
    },
  },
  {
    // The command line is the one place allowed to use commander.
    files: ['cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message: 'Only the Kubernetes layer (tools/kube/) imports @kubernetes/client-node.',
            },
          ],
        },
      ],
    },
  },
  {
    // The gate and its stores stay in small pieces (issue 19): no function over 80 lines.
    files: ['server/gate/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Not split yet (issue 19, left for the next step): the PostgreSQL store.
    files: ['server/gate/store/postgres.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    files: ['test/**'],
    rules: { 'no-restricted-imports': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
