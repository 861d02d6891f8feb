/**
 * The baseline: a bare node:http server answering every request with the same status,
 * bytes and headers the host's list endpoint sends (or, for the list part's second
 * baseline, the body alone). No body for a 304.
 */
import fs from 'node:fs'
import http from 'node:http'

const [file, port] = [process.argv[2]!, Number(process.argv[3])]
const { body, headers, status = 200 } = JSON.parse(fs.readFileSync(file, 'utf8')) as { body: string, headers: Record<string, string>, status?: number }
const bytes = Buffer.from(body)
const head = status === 304 ? { ...headers } : { ...headers, 'content-length': bytes.length }
const server = http.createServer((_request, response) => {
  response.writeHead(status, head)
  response.end(status === 304 ? undefined : bytes)
})
server.keepAliveTimeout = 10_000
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
