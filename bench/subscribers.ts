/**
 * N stream subscribers in one process. Prints "ready" once every one is connected,
 * then, on stdin "done", the arrival times of each shout-created event per subscriber.
 */
import http from 'node:http'

const [url, count] = [process.argv[2]!, Number(process.argv[3])]
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
/** arrivals[eventId] = list of Date.now() at arrival, one per subscriber. */
const arrivals = new Map<string, number[]>()
let connected = 0

for (let i = 0; i < count; i++) {
  const request = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, response => {
    response.setEncoding('utf8')
    let buffer = ''
    let counted = false
    response.on('data', (chunk: string) => {
      const now = Date.now()
      buffer += chunk
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (block.includes('event: ready') && !counted) {
          counted = true
          if (++connected === count) process.stdout.write('ready\n')
        }
        if (block.includes('event: shout-created')) {
          const id = /^id: (\d+)/m.exec(block)?.[1] ?? '?'
          const list = arrivals.get(id) ?? []
          list.push(now)
          arrivals.set(id, list)
        }
      }
    })
  })
  request.on('error', error => process.stderr.write(`subscriber ${i}: ${error.message}\n`))
}

process.stdin.setEncoding('utf8')
process.stdin.on('data', (text: string) => {
  if (!text.includes('done')) return
  process.stdout.write(JSON.stringify(Object.fromEntries(arrivals)) + '\n', () => process.exit(0))
})
