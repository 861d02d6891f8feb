import type { FastifyBaseLogger } from 'fastify'
import nodemailer from 'nodemailer'

export interface Message {
  readonly from: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers: Readonly<Record<string, string>>
}

/** Where mails go: an SMTP server, the log (`--dev` without SMTP_URL), or nowhere. */
export interface MailTransport {
  /** Whether mails can go anywhere: the features that need them say so when not. */
  readonly available: boolean
  /** `smtp`, `log` or `none`: what the panel shows. */
  readonly kind: 'smtp' | 'log' | 'none'
  send (message: Message): Promise<void>
  close (): void
}

/** `SMTP_URL` without its password: what the panel may show. */
export function withoutPassword (smtpUrl: string): string {
  const url = new URL(smtpUrl)
  if (url.password !== '') url.password = '***'
  return url.toString()
}

/**
 * An SMTP transport for `smtpUrl` (`smtp://` or `smtps://`, user and password when the
 * server wants them); without it, in development, one that writes each mail to the log
 * (so a link can be followed by hand), and otherwise none.
 */
export function mailTransport (smtpUrl: string | undefined, dev: boolean, log: FastifyBaseLogger): MailTransport {
  if (smtpUrl !== undefined) {
    const transporter = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as nodemailer.TransportOptions)
    return {
      available: true,
      kind: 'smtp',
      async send (message) {
        await transporter.sendMail({ ...message, headers: { ...message.headers } })
      },
      close: () => transporter.close()
    }
  }
  if (dev) {
    return {
      available: true,
      kind: 'log',
      async send (message) {
        log.info({ mail: { to: message.to, subject: message.subject, text: message.text, headers: message.headers } }, 'mail (no SMTP_URL: written to the log)')
      },
      close: () => {}
    }
  }
  return {
    available: false,
    kind: 'none',
    async send () {
      throw new Error('no SMTP_URL: mail cannot be sent')
    },
    close: () => {}
  }
}
