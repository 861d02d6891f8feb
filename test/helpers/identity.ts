import type { FastifyInstance } from 'fastify'

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
