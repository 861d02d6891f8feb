/**
 * The pictures part's baseline: Fastify with @fastify/static serving a folder of pictures,
 * with the headers the host sends a picture with (immutable caching, nosniff, a policy
 * that lets it run nothing). Started as `node --import tsx bench/static-server.ts <dir> <port>`;
 * prints `ready` once it listens.
 */
import fastifyStatic from '@fastify/static'
import Fastify from 'fastify'

const [root, port] = [process.argv[2]!, Number(process.argv[3])]
const app = Fastify({ logger: false, keepAliveTimeout: 10_000 })
await app.register(fastifyStatic, {
  root,
  prefix: '/uploads/',
  setHeaders: reply => {
    reply.header('cache-control', 'public, max-age=31536000, immutable')
    reply.header('x-content-type-options', 'nosniff')
    reply.header('content-security-policy', "default-src 'none'")
  }
})
await app.listen({ port, host: '127.0.0.1' })
process.stdout.write('ready\n')
process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)) })
