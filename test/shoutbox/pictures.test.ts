import t from 'tap'
import sharp from 'sharp'
import { as, error } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { testDatabase } from '../helpers/database.js'
import { account, roleWith } from '../helpers/identity.js'
import { connectSse } from '../helpers/sse.js'
import { gifar, htmlPolyglot, phoneJpeg, pixelBomb, plainPicture, upload } from '../helpers/pictures.js'

/**
 * Pictures in shouts: uploads decoded and written again (metadata gone, orientation
 * applied, bounded in bytes and pixels), attached with alt text, served with immutable
 * caching to whoever may read their shout and to nobody else. One board for the file.
 */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
const IMMUTABLE = 'max-age=31536000, immutable'

interface Picture { url: string, thumbUrl: string, width: number, height: number, alt: string }

// On disk: a second process opens it after the first (the embedded database is one process's at a time).
const db = await testDatabase({ persistent: true })
const app = await build(t, { db })
const admin = await setUp(app)
await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, holdUploads: false })
const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
const mira = await account(app, admin, 'mira')
const omar = await account(app, admin, 'omar')
const staffRoom = (await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'lounge', name: 'Lounge', read: 'signed-in' })).json().room as { id: number }
t.ok(staffRoom.id > 0)

const uploaded = async (cookie: string, bytes: Buffer | Promise<Buffer>, type = 'image/jpeg'): Promise<{ id: number, width: number, height: number }> => {
  const response = await upload(app, cookie, await bytes, 'photo', type)
  if (response.statusCode !== 200) throw new Error(response.body)
  return response.json().upload
}
const post = async (cookie: string, body: Record<string, unknown>, room = 'general') => as(app, cookie).post(`/api/shoutbox/rooms/${room}/shouts`, body)
const serve = (url: string, cookie?: string) => as(app, cookie).get(url)
const sweep = () => app.addons.hostContext.pictureStore.sweep()

t.test('a phone photo: its GPS position and every other metadata gone, its orientation applied, written as WebP with a thumbnail', async t => {
  const original = await phoneJpeg()
  const before = await sharp(original).metadata()
  t.equal(before.orientation, 6, 'the photo is stored sideways, as phones do')
  t.ok(original.includes('WGS-84-SECRET') && original.includes('GPS-SECRET-OWNER'), 'and carries a GPS position and an owner in its EXIF')
  const picture = await uploaded(mira, original)
  t.same(picture, { id: picture.id, width: 200, height: 400 }, 'turned upright: 200 wide, 400 high')
  const shout = (await post(mira, { message: 'my photo', uploads: [{ id: picture.id, alt: 'A red wall with a blue stripe' }] })).json().shout
  const [shown] = shout.uploads as Picture[]
  t.match(shown, { url: /^\/uploads\/[0-9a-f]{64}\.webp$/, thumbUrl: /^\/uploads\/[0-9a-f]{64}\.thumb\.webp$/, width: 200, height: 400, alt: 'A red wall with a blue stripe' })
  const served = await serve(shown!.url)
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/webp')
  const bytes = served.rawPayload
  t.notOk(bytes.includes('WGS-84-SECRET') || bytes.includes('GPS-SECRET-OWNER') || bytes.includes('PhoneMaker') || bytes.includes('Exif'), 'no EXIF, no GPS, no maker in what is served')
  const after = await sharp(bytes).metadata()
  t.equal(after.format, 'webp')
  t.same([after.width, after.height, after.orientation, after.exif, after.xmp, after.icc], [200, 400, undefined, undefined, undefined, undefined], 'upright, nothing but pixels')
  // The blue stripe was on the left of the sideways photo: turned clockwise, it is on top.
  const { data } = await sharp(bytes).extract({ left: 100, top: 20, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true })
  t.ok(data[2]! > 150 && data[0]! < 100, `the top is blue (${[...data].join(',')}): the orientation was applied`)
  const thumb = await serve(shown!.thumbUrl)
  t.equal(thumb.statusCode, 200)
  const small = await sharp(thumb.rawPayload).metadata()
  t.same([small.format, small.width, small.height], ['webp', 160, 320], 'the thumbnail: at most 320 px')
  const { createHash } = await import('node:crypto')
  t.equal(shown!.url, `/uploads/${createHash('sha256').update(bytes).digest('hex')}.webp`, 'named by the SHA-256 of the bytes served')
})

t.test('served like a static file that can never be anything but a picture', async t => {
  const picture = await uploaded(mira, plainPicture('png'), 'image/png')
  const [shown] = (await post(mira, { message: 'png', uploads: [{ id: picture.id, alt: 'green' }] })).json().shout.uploads as Picture[]
  for (const url of [shown!.url, shown!.thumbUrl]) {
    const served = await serve(url)
    t.equal(served.headers['cache-control'], `public, ${IMMUTABLE}`, `${url}: cached for a year by anyone`)
    t.equal(served.headers['x-content-type-options'], 'nosniff')
    t.equal(served.headers['content-security-policy'], "default-src 'none'")
    t.equal(served.headers['content-type'], 'image/webp')
  }
  t.same((await serve(shown!.url.replace('/uploads/', '/api/uploads/'))).statusCode, 200, 'the same endpoint under /api/')
})

t.test('every format taken: JPEG, PNG, WebP, GIF, AVIF; a large picture is brought down to 2048 px', async t => {
  for (const format of ['jpeg', 'png', 'webp', 'gif', 'avif'] as const) {
    const picture = await uploaded(omar, plainPicture(format), `image/${format}`)
    t.same([picture.width, picture.height], [64, 48], format)
  }
  const big = await uploaded(omar, sharp({ create: { width: 4000, height: 1000, channels: 3, background: '#888' } }).jpeg().toBuffer())
  t.same([big.width, big.height], [2048, 512], 'the long side at 2048 px')
})

t.test('a pixel bomb is refused from its header, before its pixels are decoded', async t => {
  const bomb = pixelBomb(30_000, 30_000)
  t.ok(bomb.length < 4096, `${bomb.length} bytes that would decode to 900 megapixels`)
  t.same([(await upload(app, mira, bomb, 'bomb.png', 'image/png')).statusCode, (await upload(app, mira, bomb, 'bomb.png', 'image/png')).json()], [400, error('IMAGE_TOO_LARGE', { maxPixels: 40_000_000 })])
  const justOver = pixelBomb(8000, 5001)
  t.same((await upload(app, mira, justOver, 'x.png', 'image/png')).json(), error('IMAGE_TOO_LARGE', { maxPixels: 40_000_000 }), 'just over 40 megapixels')
})

t.test('a polyglot is neutralised: only the picture\'s pixels are written again', async t => {
  for (const [name, bytes, trailer] of [['a JPEG with a script after it', await htmlPolyglot(), '<script'], ['a GIF with a zip after it (GIFAR)', await gifar(), 'PK\x03\x04']] as const) {
    t.ok(bytes.includes(trailer), `${name}: the upload holds it`)
    const picture = await uploaded(mira, bytes)
    const [shown] = (await post(mira, { message: name, uploads: [{ id: picture.id, alt: name }] })).json().shout.uploads as Picture[]
    const served = await serve(shown!.url)
    t.notOk(served.rawPayload.includes(trailer), `${name}: not in what is served`)
    t.equal(served.rawPayload.subarray(0, 4).toString('latin1') + served.rawPayload.subarray(8, 12).toString('latin1'), 'RIFFWEBP', 'a WebP file, nothing else')
  }
})

t.test('what is not a picture is refused with 415, whatever it claims to be', async t => {
  const refused = error('UNSUPPORTED_MEDIA_TYPE')
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')
  for (const [name, bytes, type] of [
    ['an HTML page', Buffer.from('<!doctype html><script>alert(1)</script>'), 'image/jpeg'],
    ['an SVG', svg, 'image/svg+xml'],
    ['a TIFF', await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).tiff().toBuffer(), 'image/tiff'],
    ['a truncated JPEG', (await plainPicture('jpeg')).subarray(0, 200), 'image/jpeg'],
    ['an empty file', Buffer.alloc(0), 'image/png']
  ] as const) {
    const response = await upload(app, mira, bytes, 'x', type)
    t.same([response.statusCode, response.json()], [415, refused], name)
  }
})

t.test('who may upload, how much, how often', async t => {
  t.same((await upload(app, undefined, await plainPicture())).json(), error('NOT_LOGGED_IN'), 'a visitor: 401')
  const noUploads = await account(app, admin, 'lurker', await roleWith(app, admin, 'lurkers', ['addon.shoutbox.post']))
  t.same((await upload(app, noUploads, await plainPicture())).json(), error('NO_PERMISSION'), 'without addon.shoutbox.upload: 403')
  const json = await as(app, mira).post('/api/shoutbox/uploads', { file: 'abc' })
  t.same([json.statusCode, json.json()], [400, error('BAD_REQUEST', { bodyValidationError: 'body must be multipart/form-data holding one file' })], 'JSON: 400')
  await as(app, admin).put('/api/panel/shoutbox/config', { maxUploadBytes: 2048 })
  const large = await upload(app, mira, await sharp({ create: { width: 300, height: 300, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer())
  t.same([large.statusCode, large.json()], [413, error('PAYLOAD_TOO_LARGE', { maxBytes: 2048 })], 'over maxUploadBytes: 413')
  await as(app, admin).put('/api/panel/shoutbox/config', { maxUploadBytes: 5_242_880 })
  const quota = await account(app, admin, 'quota')
  const quotaId = (await app.db('users').where({ username: 'quota' }).first('id')).id as number
  await app.db('shoutbox_upload_days').insert({ user_id: quotaId, day: Math.floor(Date.now() / 86_400_000), count: 19 })
  t.equal((await upload(app, quota, await plainPicture())).statusCode, 200, 'the 20th of the day')
  const over = await upload(app, quota, await plainPicture())
  t.same([over.statusCode, over.json()], [429, error('TOO_MANY_REQUESTS')], 'the 21st: 429')
  t.ok(Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 86_400, 'until the next day')
  await as(app, mod).post('/api/panel/shoutbox/mutes', { userId: quotaId, minutes: 5 })
  t.match((await upload(app, quota, await plainPicture())).json(), { error: 'MUTED' }, 'a muted member: 403 MUTED')
})

t.test('attaching: one\'s own uploads, up to 4, each with alt text of at most 200', async t => {
  const own = await Promise.all([1, 2, 3, 4, 5].map(async () => uploaded(mira, plainPicture())))
  const others = await uploaded(omar, plainPicture())
  const bad = async (body: Record<string, unknown>) => {
    const response = await post(mira, { message: 'pics', ...body })
    return [response.statusCode, response.json().error]
  }
  t.same(await bad({ uploads: own.map(p => ({ id: p.id, alt: 'x' })) }), [400, 'BAD_REQUEST'], 'five')
  t.same(await bad({ uploads: [{ id: others.id, alt: 'x' }] }), [400, 'BAD_REQUEST'], "someone else's")
  t.same(await bad({ uploads: [{ id: 9_999_999, alt: 'x' }] }), [400, 'BAD_REQUEST'], 'no upload')
  t.same(await bad({ uploads: [{ id: own[0]!.id, alt: 'a'.repeat(201) }] }), [400, 'BAD_REQUEST'], 'alt over 200')
  t.same(await bad({ uploads: [{ id: own[0]!.id, alt: 'x' }, { id: own[0]!.id, alt: 'y' }] }), [400, 'BAD_REQUEST'], 'the same twice')
  t.same(await bad({ uploads: [{ id: own[0]!.id }] }), [400, 'BAD_REQUEST'], 'no alt')
  const stream = connectSse(`${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream?rooms=general`)
  await stream.next(e => e.event === 'ready')
  const posted = (await post(mira, { message: 'four', uploads: own.slice(0, 4).map((p, i) => ({ id: p.id, alt: `picture ${i + 1}` })) })).json().shout
  t.same((posted.uploads as Picture[]).map(p => p.alt), ['picture 1', 'picture 2', 'picture 3', 'picture 4'], 'in order')
  const event = await stream.next(e => e.event === 'shout-created' && JSON.parse(e.data).id === posted.id)
  t.same(JSON.parse(event.data).uploads, posted.uploads, 'the stream carries them')
  stream.close()
  const byId = (await serve(`/api/shoutbox/shouts/${posted.id}`)).json().shout
  t.same(byId.uploads, posted.uploads, 'the permalink')
  const archive = (await serve('/api/shoutbox/archive')).json().shouts.find((s: { id: number }) => s.id === posted.id)
  t.same(archive.uploads, posted.uploads, 'the archive')
  const latest = (await serve('/api/shoutbox/latest')).json().shouts.find((s: { id: number }) => s.id === posted.id)
  t.same(latest.uploads, posted.uploads, 'the first load')
  const seed = (await serve('/api/shoutbox/list')).json().shouts.find((s: { id: number }) => s.id === posted.id)
  t.same(Object.keys(seed), ['id', 'message', 'username', 'date'], "the seed's list keeps its four fields")
  const plain = (await post(mira, { message: 'no pictures' })).json().shout
  t.notOk('uploads' in plain, 'a shout without pictures has no uploads key')
  const shared = await post(omar, { message: 'yours', uploads: [{ id: own[4]!.id, alt: 'x' }] })
  t.equal(shared.statusCode, 400, "an upload is attached by its uploader alone")
})

t.test('404 for a picture whose shout may not be read: unattached, another room, held, hidden, deleted', async t => {
  const notFound = error('NOT_FOUND')
  const loose = await uploaded(mira, plainPicture('png', 30, 30))
  t.equal(loose.width, 30)
  // Unattached: its name is not known to anyone, and nothing serves it.
  const attachedSomewhere = await uploaded(mira, plainPicture('png', 31, 31))
  const [lounge] = (await post(mira, { message: 'members only', uploads: [{ id: attachedSomewhere.id, alt: 'x' }] }, 'lounge')).json().shout.uploads as Picture[]
  t.same((await serve(lounge!.url)).json(), notFound, 'a room the visitor may not read: 404')
  t.same((await serve(lounge!.thumbUrl)).json(), notFound, 'its thumbnail too')
  const seen = await serve(lounge!.url, omar)
  t.equal(seen.statusCode, 200, 'a member reads it')
  t.equal(seen.headers['cache-control'], `private, ${IMMUTABLE}`, 'kept by their browser only, never by a shared cache')
  t.same((await serve(`/uploads/${'0'.repeat(64)}.webp`)).json(), notFound, 'no such picture')
  t.same((await serve('/uploads/../../etc/passwd')).statusCode, 404, 'no path')
  t.same((await serve('/uploads/abc.png')).json(), notFound, 'no such name')

  const fresh = await uploaded(omar, plainPicture('png', 33, 33))
  const id = await app.db('uploads').where({ id: fresh.id }).first('sha256')
  t.same((await serve(`/uploads/${id.sha256}.webp`, omar)).json(), notFound, 'unattached: 404, to its uploader too')

  // Deleted.
  const doomed = await uploaded(omar, plainPicture('png', 34, 34))
  const shout = (await post(omar, { message: 'doomed', uploads: [{ id: doomed.id, alt: 'x' }] })).json().shout
  const url = (shout.uploads as Picture[])[0]!.url
  t.equal((await serve(url)).statusCode, 200)
  t.equal((await as(app, omar).delete(`/api/shoutbox/${shout.id}`)).statusCode, 200)
  t.same((await serve(url)).json(), notFound, 'its shout deleted: 404')
  t.same((await serve(url, admin)).json(), notFound, 'to staff too')

  // Hidden by a moderator's hand (reports): taken off the board.
  const hiddenUpload = await uploaded(omar, plainPicture('png', 35, 35))
  const hidden = (await post(omar, { message: 'to hide', uploads: [{ id: hiddenUpload.id, alt: 'x' }] })).json().shout
  const hiddenUrl = (hidden.uploads as Picture[])[0]!.url
  await app.db('shoutbox_shouts').where({ id: hidden.id }).update({ state: 'hidden', why: 'reports', since: Date.now() })
  t.same((await serve(hiddenUrl)).json(), notFound, 'hidden: 404 to a visitor')
  t.same((await serve(hiddenUrl, mira)).json(), notFound, 'and to a member')
  t.equal((await serve(hiddenUrl, mod)).statusCode, 200, 'staff see it, for the review queue')
  t.equal((await serve(hiddenUrl, omar)).statusCode, 200, 'its author sees it')
})

t.test('what a visitor was served is not served once they may no longer see it: a room tightened, a shout deleted after being seen again and again', async t => {
  const notFound = error('NOT_FOUND')
  const room = (await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'porch', name: 'Porch' })).json().room as { id: number }
  // One of their own: the others' upload allowance is counted by the tests after this one.
  const pia = await account(app, admin, 'pia')
  const picture = await uploaded(pia, plainPicture('png', 36, 36))
  const [shown] = (await post(pia, { message: 'on the porch', uploads: [{ id: picture.id, alt: 'x' }] }, 'porch')).json().shout.uploads as Picture[]
  // Each visitor of a page asks for its pictures: the answer is kept between them.
  for (let i = 0; i < 3; i++) t.equal((await serve(shown!.url)).statusCode, 200)
  t.equal((await serve(shown!.thumbUrl)).statusCode, 200)
  t.equal((await as(app, admin).put(`/api/panel/shoutbox/rooms/${room.id}`, { read: 'signed-in' })).statusCode, 200)
  t.same((await serve(shown!.url)).json(), notFound, 'the room now for members: 404 to the next visitor at once')
  t.same((await serve(shown!.thumbUrl)).json(), notFound, 'its thumbnail too')
  t.equal((await serve(shown!.url, omar)).statusCode, 200, 'a member still sees it')
  t.equal((await as(app, admin).put(`/api/panel/shoutbox/rooms/${room.id}`, { read: 'everyone' })).statusCode, 200)
  t.equal((await serve(shown!.url)).statusCode, 200, 'open again: served again')
  const shout = (await as(app, undefined).get('/api/shoutbox/archive?room=porch')).json().shouts[0] as { id: number }
  t.equal((await as(app, pia).delete(`/api/shoutbox/${shout.id}`)).statusCode, 200)
  t.same((await serve(shown!.url)).json(), notFound, 'its shout deleted: 404 at once, though served a moment ago')
})

t.test('held: shown to its author and in the review queue with its pictures, to nobody else; holdUploads holds a new member\'s pictures', async t => {
  await as(app, admin).put('/api/panel/shoutbox/config', { holdUploads: true })
  const newcomer = await account(app, admin, 'newcomer')
  const picture = await uploaded(newcomer, plainPicture('png', 40, 40))
  const held = (await post(newcomer, { message: 'first!', uploads: [{ id: picture.id, alt: 'my cat' }] })).json().shout
  t.equal(held.held, true, "a new member's first shout with a picture waits")
  const url = (held.uploads as Picture[])[0]!.url
  t.same((await serve(url)).json(), error('NOT_FOUND'), 'not served to others')
  t.equal((await serve(url, newcomer)).statusCode, 200, 'its author sees it waiting')
  const queue = (await as(app, mod).get('/api/panel/shoutbox/review')).json().items as Array<{ shout: { id: number, uploads?: Picture[] }, why: string }>
  const item = queue.find(each => each.shout.id === held.id)!
  t.same([item.why, item.shout.uploads], ['pictures', held.uploads], 'the review queue shows its pictures')
  t.equal((await serve(url, mod)).statusCode, 200, 'and serves them to staff')
  t.equal((await as(app, mod).post(`/api/panel/shoutbox/review/${held.id}`, { action: 'approve' })).statusCode, 200)
  t.equal((await serve(url)).statusCode, 200, 'approved: on the board, served to all')
  const text = (await post(newcomer, { message: 'text only' })).json().shout
  t.notOk(text.held, 'text alone is not held by holdUploads')
  await as(app, admin).put('/api/panel/shoutbox/config', { holdUploads: false })
})

t.test('pictures no shout shows are removed an hour after upload; those shown stay', async t => {
  const loose = await uploaded(omar, plainPicture('png', 50, 50))
  const kept = await uploaded(omar, plainPicture('png', 51, 51))
  await post(omar, { message: 'kept', uploads: [{ id: kept.id, alt: 'x' }] })
  const young = await uploaded(omar, plainPicture('png', 52, 52))
  await app.db('uploads').whereIn('id', [loose.id, kept.id]).update({ created_at: Date.now() - 2 * 3_600_000 })
  await sweep()
  const left = (await app.db('uploads').whereIn('id', [loose.id, kept.id, young.id]).pluck('id')).map(Number).sort((a, b) => a - b)
  t.same(left, [kept.id, young.id].sort((a, b) => a - b), 'the unattached one of over an hour went; the attached one and a young one stayed')
  const store = app.addons.hostContext.pictureStore
  const orphan = await uploaded(omar, plainPicture('png', 53, 53))
  await app.db('uploads').where({ id: orphan.id }).update({ created_at: Date.now() - 2 * 3_600_000 })
  store.ownedThrough(() => undefined)
  await sweep()
  t.ok(await app.db('uploads').where({ id: orphan.id }).first(), 'an owner that cannot say (disabled, not started) keeps its pictures')
  store.ownedThrough(ownerId => app.addons.pictureOwner(ownerId))
  await sweep()
  t.notOk(await app.db('uploads').where({ id: orphan.id }).first(), 'and they go once it says they are unused')
})

t.test('a member\'s data export lists their pictures; erasing them removes their pictures everywhere', async t => {
  const leaving = await account(app, admin, 'leaving')
  const picture = await uploaded(leaving, plainPicture('png', 60, 60))
  const shout = (await post(leaving, { message: 'bye', uploads: [{ id: picture.id, alt: 'goodbye wave' }] })).json().shout
  const url = (shout.uploads as Picture[])[0]!.url
  const exported = (await as(app, leaving).get('/api/users/me/export')).json().export
  t.match(exported.addons.shoutbox.pictures, [{ url, width: 60, height: 60 }], 'export: the pictures')
  t.match(exported.addons.shoutbox.shouts, [{ message: 'bye', uploads: [{ url, alt: 'goodbye wave' }] }], 'and the shouts with their alt text')
  const deleted = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: leaving }, payload: { password: 'a long password' } })
  t.equal(deleted.statusCode, 200)
  t.same((await serve(url)).json(), error('NOT_FOUND'), 'the picture is gone')
  t.equal(await app.db('uploads').where({ id: picture.id }).first() ?? null, null, 'its row too')
  const after = (await serve(`/api/shoutbox/shouts/${shout.id}`)).json().shout
  t.notOk('uploads' in after, 'the shout (kept under deleted user) shows no picture')
  const history = await app.db('shoutbox_events').whereRaw("(shout->>'id')::bigint = ?", [shout.id]).pluck('shout')
  t.notOk(JSON.stringify(history).includes('goodbye wave'), "nor does the stream's history")
})

t.test('the site\'s logo: uploaded by whoever manages settings, served to everyone, never swept, kept when its uploader goes', async t => {
  const { multipart } = await import('../helpers/pictures.js')
  const logoUpload = async (cookie: string) => {
    const body = multipart(await plainPicture('png', 400, 100), 'logo.png', 'image/png')
    return app.inject({ method: 'POST', url: '/api/panel/uploads/logo', headers: { ...body.headers, cookie }, payload: body.payload })
  }
  t.same((await logoUpload(mira)).json(), error('NO_PERMISSION'), 'a member: 403')
  t.same((await logoUpload(mod)).json(), error('NO_PERMISSION'), 'staff without panel.manage.settings: 403')
  const made = await logoUpload(admin)
  t.equal(made.statusCode, 200)
  const logo = made.json().upload as { id: number, url: string, thumbUrl: string, width: number, height: number }
  t.match(logo, { url: /^\/uploads\/[0-9a-f]{64}\.webp$/, width: 400, height: 100 })
  const served = await serve(logo.url)
  t.same([served.statusCode, served.headers['cache-control']], [200, `public, ${IMMUTABLE}`], 'served to a visitor, cached by anyone')
  await app.db('uploads').where({ id: logo.id }).update({ created_at: Date.now() - 3 * 3_600_000 })
  await sweep()
  t.equal((await serve(logo.url)).statusCode, 200, 'the sweep leaves a logo alone')
  t.same(await app.db('uploads').where({ id: logo.id }).first('user_id'), { user_id: null }, "the site's, not its uploader's")

  // It is the site's face at once: in the panel's answer and beside the name on every page.
  const face = async () => (await app.inject({ url: '/api/panel/site-face', headers: { cookie: admin } })).json().face as { logo: string | null }
  t.equal((await face()).logo, logo.url, 'the face holds its address')
  const home = async () => (await app.inject({ url: '/' })).body
  t.match(await home(), `<a class="brand" href="/"><img class="brand-logo" src="${logo.url}" alt="">`, 'the home page draws it before the name')
  t.match((await app.inject({ url: '/privacy' })).body, `src="${logo.url}"`, 'and every other page')
  const feed = (await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: admin } })).json().logs as Array<{ type: string, details: Record<string, unknown> }>
  t.match(feed[0], { type: 'UPDATED_SITE_FACE', details: { logo: logo.url } }, 'logged')
  // A new one takes its place; the old picture goes.
  const next = (await logoUpload(admin)).json().upload as { id: number, url: string }
  const again = multipart(await plainPicture('png', 300, 90), 'logo2.png', 'image/png')
  const other = (await app.inject({ method: 'POST', url: '/api/panel/uploads/logo', headers: { ...again.headers, cookie: admin }, payload: again.payload })).json().upload as { id: number, url: string }
  t.equal(next.url, logo.url, 'the same picture again is the same upload name')
  t.equal((await face()).logo, other.url)
  t.equal((await serve(logo.url)).statusCode, 404, 'the logo it replaced is gone')
  t.equal((await serve(other.url)).statusCode, 200)
  // Staff without the settings permission cannot take it down; the administrator can.
  t.equal((await app.inject({ method: 'PUT', url: '/api/panel/site-face', headers: { cookie: mod }, payload: { logo: null } })).statusCode, 403)
  t.equal((await app.inject({ method: 'PUT', url: '/api/panel/site-face', headers: { cookie: admin }, payload: { logo: 'https://elsewhere.example/x.png' } })).statusCode, 400, 'no address of one\'s own choosing')
  const down = await app.inject({ method: 'PUT', url: '/api/panel/site-face', headers: { cookie: admin }, payload: { logo: null } })
  t.same([down.statusCode, down.json().face.logo], [200, null])
  t.notMatch(await home(), 'brand-logo', 'no logo on the pages')
  t.equal((await serve(other.url)).statusCode, 404, 'and its picture is removed')
})

t.test('UPLOADS_DIR: the bytes in files named by their SHA-256; another process with the same folder serves them', async t => {
  const fs = await import('node:fs')
  const os = await import('node:os')
  const path = await import('node:path')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-uploads-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const filesDb = await testDatabase({ persistent: true })
  const first = await build(t, { db: filesDb, config: { uploadsDir: dir } })
  const owner = await setUp(first)
  const body = (await import('../helpers/pictures.js')).multipart(await plainPicture('jpeg', 90, 60))
  const up = await first.inject({ method: 'POST', url: '/api/shoutbox/uploads', headers: { ...body.headers, cookie: owner }, payload: body.payload })
  const picture = up.json().upload as { id: number }
  const posted = await first.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie: owner }, payload: { message: 'on disk', uploads: [{ id: picture.id, alt: 'x' }] } })
  const [shown] = posted.json().shout.uploads as Picture[]
  const sha = shown!.url.slice('/uploads/'.length, -'.webp'.length)
  t.same(fs.readdirSync(dir).sort(), [`${sha}.thumb.webp`, `${sha}.webp`], 'two files, named by the picture\'s SHA-256')
  t.same(await first.db('uploads').where({ id: picture.id }).first('image', 'thumb'), { image: null, thumb: null }, 'no bytes in the database')
  await first.close()
  const second = await build(t, { db: filesDb, config: { uploadsDir: dir } })
  const served = await second.inject({ url: shown!.url })
  t.equal(served.statusCode, 200)
  t.ok(served.rawPayload.equals(fs.readFileSync(path.join(dir, `${sha}.webp`))), 'the file\'s bytes, from the other process')
})

t.test('a second process serves a picture uploaded through the first (database storage)', async t => {
  const picture = await uploaded(mira, plainPicture('webp', 70, 70), 'image/webp')
  const [shown] = (await post(mira, { message: 'for b', uploads: [{ id: picture.id, alt: 'x' }] })).json().shout.uploads as Picture[]
  const bytes = (await serve(shown!.url)).rawPayload
  await app.close()
  const second: App = await build(t, { db })
  const served = await as(second, undefined).get(shown!.url)
  t.equal(served.statusCode, 200)
  t.ok(served.rawPayload.equals(bytes), 'the same bytes, from the database')
})
