/**
 * The baseline: a bare node:http server answering every request with the same bytes
 * and headers the host's list endpoint sends.
 */
import fs from 'node:fs'
import http from 'node:http'

const [file, port] = [process.argv[2]!, Number(process.argv[3])]
const { body, headers } = JSON.parse(fs.readFileSync(file, 'utf8')) as { body: string, headers: Record<string, string> }
const bytes = Buffer.from(body)
const server = http.createServer((_request, response) => {
  response.writeHead(200, { ...headers, 'content-length': bytes.length })
  response.end(bytes)
})
server.keepAliveTimeout = 10_000
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
