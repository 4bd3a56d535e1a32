// Lint and format checks, run by `npm run lint` (and .ci/run). typescript-eslint's recommended
// rules catch mistakes tsc does not; @stylistic's rules hold the layout the code already has
// (two-space indent, single quotes, semicolons, trailing commas in multi-line literals), so that
// a formatting change shows in review as a failure, not as noise in a diff.
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**'] },
  ...tseslint.configs.recommended,
  stylistic.configs.customize({ indent: 2, quotes: 'single', semi: true, jsx: false, braceStyle: '1tbs', arrowParens: true, commaDangle: 'always-multiline' }),
  {
    rules: {
      // A name starting with _ is left out on purpose (a destructured field, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A string holding a single quote is written in double quotes rather than escaped.
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/quote-props': ['error', 'as-needed', { keywords: false, unnecessary: false }],
      // Short conditional expressions stay on one line; long ones break before the operator.
      '@stylistic/multiline-ternary': 'off',
      '@stylistic/operator-linebreak': ['error', 'before', { overrides: { '=': 'after', '+': 'ignore' } }],
      '@stylistic/max-statements-per-line': ['error', { max: 2 }],
      // SQL is built from template literals: a \${…} in a quoted string is a placeholder that never
      // filled (it sent PostgreSQL the text `\${DUE.revisited}` once, and the daemon crawled).
      'no-template-curly-in-string': 'error',
    },
  },
);
