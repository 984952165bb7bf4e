// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const KUBERNETES_CLIENT = {
  name: '@kubernetes/client-node',
  message: 'Only the Kubernetes layer (tools/kube/) imports @kubernetes/client-node.',
};
const COMMANDER = {
  name: 'commander',
  message: 'Only the command line (cli/) imports commander; libraries take plain options objects.',
};
/**
 * Module boundaries: a top-level module's index.ts is its contract. A relative import that climbs
 * into another top-level module must name that module's index.ts (`../tools/index.ts`), or one of
 * its two lighter entries for start-up paths: light.ts (no zod or heavier) and client.ts (the
 * server's client side); imports inside a module stay free, and test/ may import deep.
 */
const DEEP_IMPORT = {
  regex:
    '^(\\.\\./)+(tools|server|agent|agent-spec|deploy|core|cli|bench|trueforge)/(?!(index|light|client)\\.ts$).+',
  message:
    "Import another top-level module through its index.ts (e.g. '../tools/index.ts'), or its light.ts/client.ts; export what you need there. docs/DESIGN.md lists each module's contract.",
};
/**
 * The command line starts fast by loading another module's index.ts only inside the action that
 * needs it (`await import('../server/index.ts')`); statically it takes types from an index, values
 * only from a light entry.
 */
const CLI_STATIC_INDEX = {
  regex: '^(\\.\\./)+(tools|server|agent|agent-spec|deploy|core|trueforge)/(index|client)\\.ts$',
  allowTypeImports: true,
  message:
    "cli/ loads another module's index.ts (or client.ts) only when a command runs: `await import('…')` inside the action, or `import type`; values needed to register commands come from its light.ts (test/cli/start-up.test.ts).",
};
/** The `no-restricted-imports` rule with these forbidden paths and the module-boundary pattern. */
const restrictedImports = (...paths) => ['error', { paths, patterns: [DEEP_IMPORT] }];
/**
 * The same boundary for dynamic `import('…')` with a literal path, which `no-restricted-imports`
 * does not see. esquery regexes cannot contain `/`, hence `\x2F`. A lazy import (kept lazy for
 * start-up time, e.g. the command line's) names the module's index.ts too.
 */
const DEEP_DYNAMIC_IMPORT = {
  selector: `ImportExpression[source.value=${DEEP_IMPORT.regex.replaceAll('/', '\\x2F').replace(/^/, '/')}/]`,
  message: `${DEEP_IMPORT.message} This holds for dynamic import() too.`,
};

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
      'no-restricted-imports': restrictedImports(KUBERNETES_CLIENT, COMMANDER),
      'no-restricted-syntax': ['error', DEEP_DYNAMIC_IMPORT],
    },
  },
  {
    // The Kubernetes layer is the one place allowed to talk to client-node.
    files: ['tools/kube/**'],
    rules: { 'no-restricted-imports': restrictedImports(COMMANDER) },
  },
  {
    // The command line is the one place allowed to use commander; it imports indexes lazily.
    files: ['cli/**'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [KUBERNETES_CLIENT], patterns: [DEEP_IMPORT, CLI_STATIC_INDEX] },
      ],
    },
  },
  {
    // The gate, its stores and the identity store stay in small pieces (issue 19): no function over 80 lines.
    files: ['server/gate/**', 'server/identity-store.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['test/**'],
    rules: {
      'no-restricted-imports': 'off',
      'no-restricted-syntax': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
