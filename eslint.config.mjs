// @ts-check
/**
 * ESLint (flat config): `npm run lint` (`eslint . --max-warnings 0`); `npm test` runs it on the
 * type check's own TypeScript program (scripts/check-types-and-lint.mjs).
 *
 * - TypeScript (.ts/.tsx): typescript-eslint's type-checked recommended set through the project
 *   service (tsconfig.json), with the promise rules and exhaustive switches made explicit, and
 *   eslint-plugin-react-hooks (the hook rules and the React Compiler's rules that find bugs
 *   without the compiler).
 * - Plain JavaScript (.mjs/.js, Node scripts and fixtures): eslint's recommended set with Node's
 *   globals; no type information, so no type-checked rules.
 *
 * Every rule turned off says why on its line; every eslint-disable comment in the repo says why
 * after ` -- ` (enforced by local/disable-needs-reason below).
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** An eslint-disable comment must give its reason: `eslint-disable-next-line rule -- why`. */
const disableNeedsReason = {
  meta: {
    type: 'suggestion',
    docs: { description: 'require a reason (` -- why`) on every eslint-disable comment' },
    schema: [],
    messages: { noReason: 'say why after " -- " on this eslint-disable comment' },
  },
  /** @param {import('eslint').Rule.RuleContext} context */
  create(context) {
    return {
      Program() {
        for (const c of context.sourceCode.getAllComments()) {
          const text = c.value.trim();
          if (/^eslint-disable(-next-line|-line)?(\s|$)/.test(text) && !/\s--\s*\S/.test(text)) {
            context.report({ loc: c.loc ?? { line: 1, column: 0 }, messageId: 'noReason' });
          }
        }
      },
    };
  },
};

export default defineConfig([
  globalIgnores([
    '.next/',
    'node_modules/',
    'dist/',
    'test-results/',
    'playwright-report/',
    'bench/.cache/',
    'conformance/', // data: vectors and channels the real ferry wrote
    '.claimboard/',
    'next-env.d.ts', // written by Next.js
  ]),

  {
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
    plugins: { local: { rules: { 'disable-needs-reason': disableNeedsReason } } },
    rules: { 'local/disable-needs-reason': 'error' },
  },

  js.configs.recommended,

  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked, reactHooks.configs.flat.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits loses its rejection: handle it, or say `void` where ignoring is right.
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise where a boolean or a callback's return is checked; an async onClick/onSubmit
      // handler in JSX is the usual React idiom (React ignores the returned promise), so not there.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      // The codebase's rule: a switch over a union names every member and has no `default`
      // (so a new member is a type error where it must be handled); a `default` stays for
      // switches over open types (string, number).
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { allowDefaultCaseForExhaustiveSwitch: false, considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      // `_name` is how the code says "unused on purpose" (an omitted field in a rest destructuring).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Off: an async function without `await` is how a method keeps a Promise-returning contract
      // (Indexer.stop) and turns a synchronous throw into a rejection; await-thenable and
      // no-floating-promises catch the missing-await bugs this rule is after.
      '@typescript-eslint/require-await': 'off',

      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // The React Compiler's rules (the 7.x recommended set); this app does not run the compiler,
      // so each stays only where it finds a bug in plain React too:
      //  kept: refs (a ref read or written during render), immutability (a value changed after
      //  render), purity (Date.now/Math.random in render), globals, static-components (a component
      //  made in render loses its state), set-state-in-render, use-memo, error-boundaries,
      //  unsupported-syntax, config, gating.
      // Off: its findings here are effects that sync with an outside system by design (browser
      // storage once mounted, so the server render matches; a DOM measurement; the URL; the
      // server's clock; a query's answer): the cost it names is one extra render, not a wrong one.
      'react-hooks/set-state-in-effect': 'off',
      // Off: it says the compiler will skip a component (TanStack Virtual's useVirtualizer); there is no compiler.
      'react-hooks/incompatible-library': 'off',
      // Off: it says the compiler cannot keep a manual useMemo/useCallback; there is no compiler.
      'react-hooks/preserve-manual-memoization': 'off',
    },
  },

  {
    files: ['**/*.test.{ts,tsx}'],
    rules: {
      // Off in tests: they read JSON answers (JSON.parse: any) field by field on purpose, and
      // expect() is the check; in the source these rules stay on.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },

  {
    files: ['e2e/**/*.ts'],
    rules: {
      // Playwright's fixture functions: `{}` asks for no other fixture, and the callback that
      // hands a fixture's value on is named `use` (not React's hook).
      'no-empty-pattern': 'off',
      'react-hooks/rules-of-hooks': 'off',
    },
  },

  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
]);
