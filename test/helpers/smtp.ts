import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import type { Tap } from './types.js'

/** A mail as the test's SMTP server received it. */
export interface ReceivedMail {
  readonly from: string
  readonly to: readonly string[]
  readonly raw: string
  /** Header names lower-cased; encoded words decoded. */
  readonly headers: Readonly<Record<string, string>>
  readonly subject: string
  readonly text: string
  readonly html: string
}

function decodeWords (value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_all, _charset: string, how: string, data: string) => how.toUpperCase() === 'B'
    ? Buffer.from(data, 'base64').toString('utf8')
    : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'))
}

function parseHeaders (block: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = decodeWords(line.slice(colon + 1).trim())
  }
  return headers
}

function decodeBody (body: string, encoding: string | undefined): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    return Buffer.from(bytes, 'latin1').toString('utf8')
  }
  return body
}

/** Headers and the text and HTML parts of a raw message (what nodemailer writes: one part, or multipart/alternative). */
export function parseMail (raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text' | 'html'> {
  const split = raw.indexOf('\r\n\r\n')
  const headers = parseHeaders(raw.slice(0, split))
  const body = raw.slice(split + 4)
  const parts: Record<string, string> = {}
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1]
  const chunks = boundary === undefined ? [raw] : body.split(`--${boundary}`).slice(1, -1).map(chunk => chunk.replace(/^\r\n/, ''))
  for (const chunk of chunks) {
    const at = chunk.indexOf('\r\n\r\n')
    const partHeaders = parseHeaders(chunk.slice(0, at))
    const type = (partHeaders['content-type'] ?? 'text/plain').split(';')[0]!.trim()
    parts[type] = decodeBody(chunk.slice(at + 4).replace(/\r\n$/, ''), partHeaders['content-transfer-encoding']).replace(/\r\n/g, '\n')
  }
  return { headers, subject: headers.subject ?? '', text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '' }
}

export interface Mailbox {
  readonly url: string
  readonly received: ReceivedMail[]
  /** While set, the server refuses each mail with a temporary error (451). */
  refusing: boolean
  /** Mails sent to `to`. */
  to (address: string): ReceivedMail[]
}

/** A real SMTP server on loopback (the `smtp-server` package), keeping every mail it accepts; closed when the test ends. */
export async function smtpServer (t: Tap, port = 0): Promise<Mailbox> {
  const received: ReceivedMail[] = []
  const state = { refusing: false }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if (state.refusing) {
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }))
          return
        }
        const raw = Buffer.concat(chunks).toString('utf8')
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address
        received.push({ from, to: session.envelope.rcptTo.map(r => r.address), raw, ...parseMail(raw) })
        callback()
      })
    }
  })
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())))
  const address = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    received,
    get refusing () { return state.refusing },
    set refusing (value: boolean) { state.refusing = value },
    to: address => received.filter(mail => mail.to.includes(address))
  }
}

/** The token of the reset link in `mail`'s text. */
export function resetToken (mail: ReceivedMail): string {
  const token = /\/password-reset#token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1]
  if (token === undefined) throw new Error(`no reset link in: ${mail.text}`)
  return token
}
