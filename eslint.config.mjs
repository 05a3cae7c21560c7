// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'tools/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A number in a message or a key is what we mean to write; objects and nullables stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    files: ['packages/*/test/**/*.ts'],
    rules: {
      // Tests index into what they have just asserted (noUncheckedIndexedAccess); a wrong guess fails the test.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
)
