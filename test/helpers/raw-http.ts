import net from 'node:net'

/** Sends exact bytes over a fresh socket; resolves with everything the server sent back. */
export function rawRequest (port: number, bytes: Buffer | string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let received = ''
    // A limit on the wait, not a wait: the server's close ends it at once.
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(received)}`))
    }, timeoutMs)
    socket.on('connect', () => socket.write(bytes))
    socket.on('data', chunk => { received += chunk.toString('latin1') })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(received)
    })
  })
}

/** Status and parsed JSON body of a raw HTTP/1.1 response. */
export function parseResponse (raw: string): { status: number, headers: string, body: unknown } {
  const end = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, end)
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0)
  const text = raw.slice(end + 4)
  let body: unknown = text
  try {
    body = JSON.parse(Buffer.from(text, 'latin1').toString('utf8'))
  } catch {
    // not JSON
  }
  return { status, headers: head, body }
}
