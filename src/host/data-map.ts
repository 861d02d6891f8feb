import type { DataMap } from '../sdk/index.js'

/**
 * The host's tables in the data map (see `src/sdk/data-map.ts`): what each column holds of
 * a person, and what export and erasure (`identity/user-export.ts`, `identity/erasure.ts`)
 * do with it. `test/host/data-map.test.ts` fails for a column of the database no map names.
 */
export const HOST_DATA_MAP: DataMap = [
  {
    table: 'users',
    person: 'id',
    personal: {
      username: { holds: 'name', export: 'account.username', erase: 'the row goes; the name is retired as a hash (retired_usernames)' },
      email: { holds: 'email', export: 'account.email', erase: 'the row goes' },
      password_hash: { holds: 'secret', export: 'left out (a secret)', erase: 'the row goes' }
    },
    other: ['id', 'role_id', 'created_at', 'disabled', 'bot', 'email_unconfirmed']
  },
  {
    table: 'uploads',
    person: 'user_id',
    erase: 'rows',
    personal: {
      image: { holds: 'text', export: "the owner's part lists each picture (url, size); the bytes at their url", erase: 'rows go (their files, with UPLOADS_DIR, at the next sweep)', delete: 'a picture no owner uses goes an hour after its upload' },
      thumb: { holds: 'text', export: 'as image (thumbUrl)', erase: 'rows go', delete: 'as image' }
    },
    other: ['id', 'owner_id', 'kind', 'user_id', 'sha256', 'width', 'height', 'size', 'created_at']
  },
  {
    table: 'retired_usernames',
    personal: {
      username: { holds: 'secret', export: 'left out (written when the account goes)', erase: 'kept as the SHA-256 of the lower-cased name: refuses it to newcomers, names no one' }
    },
    other: ['retired_at']
  },
  {
    table: 'sessions',
    person: 'user_id',
    personal: { token_hash: { holds: 'secret', export: 'left out (sessions: when each began and ends)', erase: 'rows go; every process forgets them' } },
    other: ['user_id', 'created_at', 'expires_at']
  },
  {
    table: 'api_tokens',
    person: 'user_id',
    erase: 'rows',
    personal: {
      name: { holds: 'text', export: 'tokens[].name', erase: 'rows go' },
      secret_hash: { holds: 'secret', export: 'left out', erase: 'rows go' }
    },
    other: ['id', 'user_id', 'permissions', 'created_at', 'expires_at', 'last_used_at']
  },
  {
    table: 'notifications',
    person: 'user_id',
    erase: 'rows',
    personal: {
      data: {
        holds: 'text',
        export: 'notifications[].data',
        erase: 'the reader\'s rows go; in others\', the erased person\'s name becomes `deleted user` and the excerpts of their shouts go',
        edit: 'excerpts follow the edited shout',
        delete: 'a deleted shout\'s mentions go'
      }
    },
    other: ['id', 'user_id', 'addon_id', 'kind', 'key', 'created_at', 'read']
  },
  {
    table: 'user_preferences',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['user_id', 'sound', 'desktop_notifications', 'theme', 'locale', 'email_mentions', 'mentions_mailed_through', 'mentions_mailed_at', 'mail_locale']
  },
  {
    table: 'activity_logs',
    personal: {
      username: { holds: 'name', export: 'left out (the staff\'s record)', erase: '`deleted user`, with no account' },
      details: {
        holds: 'text',
        export: 'left out (the staff\'s record)',
        erase: 'the person\'s name becomes `deleted user`; their entries and those naming them lose their text (message, previousMessage, excerpt, note, reason)'
      }
    },
    other: ['id', 'type', 'user_id', 'addon_id', 'created_at']
  },
  {
    table: 'webhook_deliveries',
    personal: {
      data: {
        holds: 'text',
        export: 'left out (sent to the site\'s own services)',
        erase: 'pending ones name `deleted user`; the text of deleted shouts goes',
        edit: 'pending ones carry the edited text',
        delete: 'pending ones lose the text (`deleted: true`)'
      }
    },
    other: ['id', 'hook_id', 'event', 'subject', 'status', 'attempts', 'response_code', 'next_attempt_at', 'locked_until', 'created_at']
  },
  {
    table: 'webhooks',
    personal: { secret: { holds: 'secret', export: 'left out (the site\'s)', erase: 'not a person\'s' } },
    other: ['id', 'url', 'events', 'active', 'created_at', 'format', 'room']
  },
  {
    table: 'mail_outbox',
    person: 'user_id',
    personal: {
      to_address: { holds: 'email', export: 'left out (mails on their way to the address in account.email)', erase: 'the person\'s mails go, pending and sent (they hang on the account)' },
      subject: { holds: 'name', export: 'left out (it may name the site and the person)', erase: 'the person\'s mails go' },
      body_text: { holds: 'text', export: 'left out (a pending reset link is a key to the account)', erase: 'the person\'s mails go; a sent mail keeps no body' },
      body_html: { holds: 'text', export: 'left out (as body_text)', erase: 'the person\'s mails go; a sent mail keeps no body' },
      headers: { holds: 'secret', export: 'left out (an unsubscribe link is a key)', erase: 'the person\'s mails go' },
      last_error: { holds: 'email', export: 'left out (the mail server\'s refusal, which may quote the address)', erase: 'the person\'s mails go' }
    },
    other: ['id', 'user_id', 'kind', 'status', 'attempts', 'next_attempt_at', 'locked_until', 'created_at']
  },
  {
    table: 'password_resets',
    person: 'user_id',
    personal: { token_hash: { holds: 'secret', export: 'left out (the SHA-256 of a reset link\'s token)', erase: 'rows go with the account' } },
    other: ['user_id', 'spent', 'created_at', 'expires_at']
  },
  {
    table: 'email_changes',
    person: 'user_id',
    personal: {
      new_email: { holds: 'email', export: 'left out (an address not yet confirmed)', erase: 'rows go with the account' },
      token_hash: { holds: 'secret', export: 'left out (the SHA-256 of a link\'s token)', erase: 'rows go with the account' }
    },
    other: ['user_id', 'spent', 'created_at', 'expires_at']
  },
  {
    table: 'email_verifications',
    person: 'user_id',
    personal: {
      token_hash: { holds: 'secret', export: 'left out (the SHA-256 of a link\'s token)', erase: 'rows go with the account' }
    },
    other: ['user_id', 'spent', 'created_at', 'expires_at']
  },
  {
    table: 'sign_in_attempts',
    personal: { key: { holds: 'address', export: 'left out (a hash of the login and the address)', erase: 'forgotten after a day without attempts' } },
    other: ['attempts', 'next_allowed_at', 'last_attempt_at']
  },
  {
    table: 'address_quotas',
    personal: { key: { holds: 'address', export: 'left out (an HMAC of the address under a key of the day)', erase: 'forgotten when its window ends' } },
    other: ['count', 'window_started_at']
  },
  { table: 'roles', personal: {}, other: ['id', 'name', 'permissions', 'builtin'] },
  { table: 'default_grants', personal: {}, other: ['node', 'granted_at'] },
  { table: 'settings', personal: {}, other: ['key', 'value'] },
  { table: 'addon_config', personal: {}, other: ['addon_id', 'key', 'value'] },
  { table: 'addon_state', personal: {}, other: ['addon_id', 'enabled'] },
  { table: 'schema_migrations', personal: {}, other: ['owner', 'name', 'applied_at'] }
]
