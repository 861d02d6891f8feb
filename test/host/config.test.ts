import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/host/config.js'
import { defaultHashingLimits } from '../../src/host/identity/passwords.js'

t.test('a default start listens on port 80 on every interface, embedded database under ./data', async t => {
  const config = loadConfig([], {})
  t.equal(config.port, 80)
  t.equal(config.host, '0.0.0.0')
  t.equal(config.dev, false)
  t.equal(config.databaseUrl, undefined)
  t.equal(config.dataDir, path.resolve('data'))
  t.equal(config.addonsDir, path.resolve('addons'))
  t.equal(config.logRequests, false)
})

t.test('--dev listens on 8088 and logs requests', async t => {
  const config = loadConfig(['--dev'], {})
  t.equal(config.port, 8088)
  t.equal(config.dev, true)
  t.equal(config.logRequests, true)
})

t.test('flags win over environment variables', async t => {
  const config = loadConfig(['--port', '9000', '--host', '127.0.0.1', '--data-dir', '/tmp/x', '--addons-dir', '/tmp/a'],
    { PORT: '7000', HOST: '::', DATA_DIR: '/nope', ADDONS_DIR: '/nope' })
  t.same([config.port, config.host, config.dataDir, config.addonsDir], [9000, '127.0.0.1', '/tmp/x', '/tmp/a'])
  const fromEnv = loadConfig(['--dev'], { PORT: '7000', DATABASE_URL: 'postgres://u@h/db', TRUST_PROXY: '1', ALLOWED_ORIGINS: 'https://a.example, https://b.example/' })
  t.equal(fromEnv.port, 7000)
  t.equal(fromEnv.databaseUrl, 'postgres://u@h/db')
  t.equal(fromEnv.trustProxy, 1)
  t.same(fromEnv.allowedOrigins, ['https://a.example', 'https://b.example'])
  t.same(loadConfig([], {}).embedOrigins, [], 'no site embeds the board unless listed')
  t.same(loadConfig([], { EMBED_ORIGINS: 'https://blog.example , http://localhost:8080/' }).embedOrigins, ['https://blog.example', 'http://localhost:8080'])
})

t.test('UV_THREADPOOL_SIZE is read as libuv reads it, once, into the config; hashing leaves one of those threads free', async t => {
  t.equal(loadConfig([], {}).threadPoolSize, 4)
  t.equal(loadConfig([], { UV_THREADPOOL_SIZE: '8' }).threadPoolSize, 8)
  for (const ignored of ['', '0', 'many']) t.equal(loadConfig([], { UV_THREADPOOL_SIZE: ignored }).threadPoolSize, 4, JSON.stringify(ignored))
  t.equal(defaultHashingLimits(4).concurrency, Math.min(os.availableParallelism(), 3))
  t.equal(defaultHashingLimits(1).concurrency, 1, 'at least one hash at a time')
})

t.test('TRUST_PROXY: a number of hops, or addresses and CIDR ranges, IPv4 and IPv6', async t => {
  t.equal(loadConfig([], {}).trustProxy, 0)
  t.equal(loadConfig([], { TRUST_PROXY: 'true' }).trustProxy, 1)
  t.equal(loadConfig([], { TRUST_PROXY: '2' }).trustProxy, 2)
  t.same(loadConfig([], { TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy, ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'])
  for (const bad of ['10.0.0.0/33', '::/129', 'proxy.example', '10.0.0.1/8/8', '1.2.3', 'fe80::1%eth0', '10.0.0.0/x']) {
    t.throws(() => loadConfig([], { TRUST_PROXY: bad }), {
      name: 'ConfigError', message: `TRUST_PROXY must be a number of proxy hops or a comma-separated list of addresses and CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8,::1), got "${bad}"`
    }, bad)
  }
})

t.test('PUBLIC_URL: the site\'s public origin, validated at start-up', async t => {
  t.equal(loadConfig([], {}).publicUrl, undefined)
  t.equal(loadConfig([], { PUBLIC_URL: '' }).publicUrl, undefined)
  t.equal(loadConfig([], { PUBLIC_URL: 'https://Shouts.Example.org/' }).publicUrl, 'https://shouts.example.org')
  t.equal(loadConfig([], { PUBLIC_URL: 'http://localhost:8088' }).publicUrl, 'http://localhost:8088')
  t.equal(loadConfig([], { PUBLIC_URL: 'https://shouts.example.org:443' }).publicUrl, 'https://shouts.example.org')
  for (const bad of ['shouts.example.org', 'ftp://shouts.example.org', 'https://shouts.example.org/board', 'https://u:p@shouts.example.org',
    'https://shouts.example.org/?x=1', 'https://shouts.example.org#top', 'https://']) {
    t.throws(() => loadConfig([], { PUBLIC_URL: bad }), {
      name: 'ConfigError', message: `PUBLIC_URL must be the site's public origin, http(s)://host[:port] with no path, like https://shouts.example.org; got "${bad}"`
    }, bad)
  }
})

t.test('stream limits: STREAMS_PER_CLIENT (default 20), MAX_STREAMS (default 10,000) and STREAM_OPENS_PER_MINUTE (default 60)', async t => {
  const defaults = loadConfig([], {})
  t.same([defaults.streamsPerClient, defaults.maxStreams, defaults.streamOpensPerMinute], [20, 10_000, 60])
  const set = loadConfig([], { STREAMS_PER_CLIENT: '3', MAX_STREAMS: '500', STREAM_OPENS_PER_MINUTE: '600' })
  t.same([set.streamsPerClient, set.maxStreams, set.streamOpensPerMinute], [3, 500, 600])
  t.throws(() => loadConfig([], { STREAM_OPENS_PER_MINUTE: '-1' }), { name: 'ConfigError', message: 'STREAM_OPENS_PER_MINUTE must be a whole number from 1 up, got "-1"' })
  t.throws(() => loadConfig([], { STREAMS_PER_CLIENT: '0' }), { name: 'ConfigError', message: 'STREAMS_PER_CLIENT must be a whole number from 1 up, got "0"' })
  t.throws(() => loadConfig([], { MAX_STREAMS: 'lots' }), { name: 'ConfigError', message: 'MAX_STREAMS must be a whole number from 1 up, got "lots"' })
})

t.test('bad settings are refused with one clear line', async t => {
  t.throws(() => loadConfig(['--port', 'eighty'], {}), { name: 'ConfigError', message: 'port must be a number from 0 to 65535, got "eighty"' })
  t.throws(() => loadConfig(['--bogus'], {}), { name: 'ConfigError', message: /Unknown option '--bogus'/ })
  t.throws(() => loadConfig([], { DATABASE_URL: 'mysql://x' }), /DATABASE_URL must start with postgres/)
  t.throws(() => loadConfig([], { ALLOWED_ORIGINS: 'not a url' }), /ALLOWED_ORIGINS/)
  for (const bad of ['blog.example', 'ftp://blog.example', 'javascript:alert(1)']) {
    t.throws(() => loadConfig([], { EMBED_ORIGINS: bad }), { name: 'ConfigError', message: `EMBED_ORIGINS: "${bad}" is not an origin like https://example.org` }, bad)
  }
  t.throws(() => loadConfig([], { DATABASE_SCHEMA: 'Bad-Name' }), /DATABASE_SCHEMA/)
})

t.test('ADDRESS_SECRET: unset by default (the data folder\'s file then), 32 characters or more', async t => {
  t.equal(loadConfig([], {}).addressSecret, undefined)
  t.equal(loadConfig([], { ADDRESS_SECRET: ' ' }).addressSecret, undefined)
  const secret = 'x'.repeat(32)
  t.equal(loadConfig([], { ADDRESS_SECRET: ` ${secret}\n` }).addressSecret, secret, 'without the spaces around it')
  t.throws(() => loadConfig([], { ADDRESS_SECRET: 'x'.repeat(31) }), {
    name: 'ConfigError', message: 'ADDRESS_SECRET must be 32 characters or more (openssl rand -base64 32): one that can be guessed ties a copy of the database\'s counters to addresses'
  })
})

t.test('LOG_CLIENT_ADDRESSES: off unless set, --dev too', async t => {
  t.equal(loadConfig([], {}).logClientAddresses, false)
  t.equal(loadConfig(['--dev'], {}).logClientAddresses, false)
  t.equal(loadConfig([], { LOG_CLIENT_ADDRESSES: '1' }).logClientAddresses, true)
  t.equal(loadConfig([], { LOG_CLIENT_ADDRESSES: '0' }).logClientAddresses, false)
  t.throws(() => loadConfig([], { LOG_CLIENT_ADDRESSES: 'yes' }), { name: 'ConfigError', message: 'LOG_CLIENT_ADDRESSES must be a whole number (0, 1, 2, …), got "yes"' })
})

t.test('SMTP_URL and MAIL_FROM: unset by default; SMTP_URL smtp:// or smtps://, and only with PUBLIC_URL', async t => {
  const none = loadConfig([], {})
  t.same([none.smtpUrl, none.mailFrom], [undefined, undefined])
  const set = loadConfig([], { SMTP_URL: 'smtps://shouts:secret@mail.example.org:465', MAIL_FROM: 'Shouts <mail@example.org>', PUBLIC_URL: 'https://shouts.example.org' })
  t.same([set.smtpUrl, set.mailFrom], ['smtps://shouts:secret@mail.example.org:465', 'Shouts <mail@example.org>'])
  t.equal(loadConfig([], { SMTP_URL: 'smtp://127.0.0.1:2525', PUBLIC_URL: 'http://localhost:8088' }).smtpUrl, 'smtp://127.0.0.1:2525')
  for (const bad of ['http://mail.example.org', 'mail.example.org:25', 'smtp://']) {
    t.throws(() => loadConfig([], { SMTP_URL: bad, PUBLIC_URL: 'https://shouts.example.org' }), {
      name: 'ConfigError', message: 'SMTP_URL must be smtp://[user:password@]host[:port] or smtps://… (e.g. smtp://127.0.0.1:2525)'
    }, bad)
  }
  // A link made from a request's Host could point a reset at the attacker's site.
  t.throws(() => loadConfig([], { SMTP_URL: 'smtp://127.0.0.1:2525' }), { name: 'ConfigError', message: 'SMTP_URL needs PUBLIC_URL: the links in mails are made from it' })
})
