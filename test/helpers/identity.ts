import type { FastifyInstance } from 'fastify'
import { login } from './app.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
export type Answer = [status: number, body: Record<string, unknown>]

/** Requests as the holder of `cookie`; answers as [status, body], ready for `t.same`. */
export const client = (app: FastifyInstance, cookie: string) => async (method: Method, url: string, payload?: Record<string, unknown>): Promise<Answer> => {
  const response = await app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) })
  return [response.statusCode, response.json()]
}

/** A sign-in's answer (the cookie is not kept). */
export const signIn = async (app: FastifyInstance, username: string, password: string): Promise<Answer> => {
  const response = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })
  return [response.statusCode, response.json()]
}

/** Every row of the identity tables and the log, to show a refusal changed nothing. */
export const snapshot = async (app: FastifyInstance) => ({
  users: await app.db('users').orderBy('id').select(),
  roles: await app.db('roles').orderBy('id').select(),
  sessions: await app.db('sessions').orderBy('token_hash').select(),
  activity: await app.db('activity_logs').orderBy('id').select()
})

/** The newest `count` entries of the activity feed as `cookie`'s holder reads it, without ids and times. */
export const feed = async (app: FastifyInstance, cookie: string, count: number, locale = 'en') => {
  const { logs } = (await app.inject({ url: `/api/panel/logs/activity?locale=${locale}`, headers: { cookie } })).json() as { logs: Array<Record<string, unknown>> }
  return logs.slice(0, count).map(({ id: _, createdAt: __, ...entry }) => entry)
}

/** The password of the accounts `account` makes. */
export const ACCOUNT_PASSWORD = 'a long password'

/** The id of the built-in member role. */
export async function memberRoleId (app: FastifyInstance, admin: string): Promise<number> {
  const roles = (await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })).json().roles as Array<{ id: number, name: string }>
  return roles.find(role => role.name === 'member')!.id
}

/** A user made by the administrator, with `roleId` (the member role unless given), signed in: their session cookie. */
export async function account (app: FastifyInstance, admin: string, username: string, roleId?: number): Promise<string> {
  const created = await app.inject({
    method: 'POST',
    url: '/api/panel/users',
    headers: { cookie: admin },
    payload: { username, email: `${username}@example.org`, password: ACCOUNT_PASSWORD, roleId: roleId ?? await memberRoleId(app, admin) }
  })
  if (created.statusCode !== 200) throw new Error(created.body)
  return login(app, username, ACCOUNT_PASSWORD)
}

/** A role made by the administrator with `permissions`: its id. */
export async function roleWith (app: FastifyInstance, admin: string, name: string, permissions: string[]): Promise<number> {
  const made = await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name, permissions } })
  if (made.statusCode !== 200) throw new Error(made.body)
  return made.json().role.id as number
}
