import t from 'tap'
import { rewritePanelUrl } from '../../../src/host/http/panel-rewrite.js'
import { build, setUp } from '../../helpers/app.js'

t.test('/panel/api/<rest> becomes /api/panel/<rest>, query kept, once', async t => {
  t.equal(rewritePanelUrl('/panel/api/shoutbox'), '/api/panel/shoutbox')
  t.equal(rewritePanelUrl('/panel/api/logs/activity?page=2&locale=tr'), '/api/panel/logs/activity?page=2&locale=tr')
  t.equal(rewritePanelUrl('/panel/api/panel/api/x'), '/api/panel/panel/api/x')
  t.equal(rewritePanelUrl('/api/shoutbox/list'), '/api/shoutbox/list')
  t.equal(rewritePanelUrl('/panel/'), '/panel/')
  t.equal(rewritePanelUrl('/panel/apix/shoutbox'), '/panel/apix/shoutbox')
})

t.test('through the app, the rewritten request keeps its method and query string', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const viaPanel = await app.inject({ method: 'GET', url: '/panel/api/logs/activity?page=2&locale=tr', headers: { cookie } })
  t.equal(viaPanel.statusCode, 200)
  t.same(viaPanel.json(), { result: 'ok', logs: [], page: 2, totalPages: 1 })
  const post = await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'via the panel path' } })
  t.same([post.statusCode, post.json()], [200, { result: 'ok' }])
  const wrongMethod = await app.inject({ method: 'PATCH', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'x' } })
  t.same([wrongMethod.statusCode, wrongMethod.json()], [404, { result: 'error', error: 'NOT_FOUND' }])
})
