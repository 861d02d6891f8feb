import t from 'tap'
import { EMOJI_GROUPS, searchEmoji, withEmoji } from '../../src/shoutbox/ui/shared/emoji.js'

/** CONTRACT §16, emoji: the set bundled with the widget, its `:shortcodes:` and its search. */

t.test(':shortcodes: the set knows become emoji; everything else stays as written', async t => {
  t.equal(withEmoji(':+1: see you :tada:'), '👍 see you 🎉')
  t.equal(withEmoji(':THUMBSUP::heart:'), '👍❤️', 'any case, side by side')
  t.equal(withEmoji('lunch at 12:30:00, ratio 3:100:2'), 'lunch at 12:30:00, ratio 3:100:2', 'a time and a ratio are not names')
  t.equal(withEmoji('urn:b:c and https://example.org/a:smile:'), 'urn:b:c and https://example.org/a:smile:', 'nor parts of a word or a path')
  t.equal(withEmoji(':nothing_like_this: and :: and :'), ':nothing_like_this: and :: and :')
  t.equal(withEmoji('(:smile:)'), '(😄)', 'punctuation around one is fine')
})

t.test('the picker\'s set: every group of Unicode, each emoji once, named for a screen reader', async t => {
  t.same(EMOJI_GROUPS.map(group => group.name), ['Smileys & Emotion', 'People & Body', 'Animals & Nature', 'Food & Drink', 'Travel & Places', 'Activities', 'Objects', 'Symbols', 'Flags'])
  const all = EMOJI_GROUPS.flatMap(group => group.emoji)
  t.ok(all.length > 1500, `${all.length} emoji`)
  t.equal(new Set(all.map(entry => entry.emoji)).size, all.length)
  t.ok(all.every(entry => entry.description !== '' && entry.names.length > 0))
})

t.test('the search finds by name, tag and description, every word', async t => {
  t.equal(searchEmoji('tada')[0]?.emoji, '🎉')
  t.ok(searchEmoji('cat').some(entry => entry.emoji === '🐱'))
  t.ok(searchEmoji('heart red').length < searchEmoji('heart').length, 'each word narrows it')
  t.same(searchEmoji(':smile:'), searchEmoji('smile'), 'colons are ignored')
  t.ok(searchEmoji('smile').some(entry => entry.emoji === '😄'))
  t.same(searchEmoji('   '), [])
  t.same(searchEmoji('zzzqqq'), [])
  t.equal(searchEmoji('face', 5).length, 5, 'bounded')
})
