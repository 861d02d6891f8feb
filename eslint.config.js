import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'dist.*/', 'node_modules/', '.tap/', 'data/', 'addons/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off'
    }
  },
  {
    // The one architectural rule: an addon imports only from the SDK.
    files: ['src/shoutbox/**/*.ts', 'test/fixtures/addons/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!\\.\\.?/|node:)', message: 'An addon imports only from src/sdk/.' },
          { regex: '/host/', message: 'An addon imports only from src/sdk/, never from the host.' }]
      }]
    }
  },
  {
    // Its browser modules may bundle a package of their own: it ships inside the addon's ui/.
    files: ['src/shoutbox/ui/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!\\.\\.?/|node:|gemoji$)', message: 'An addon imports only from src/sdk/ (its ui/ may bundle gemoji).' },
          { regex: '/host/', message: 'An addon imports only from src/sdk/, never from the host.' }]
      }]
    }
  }
)
