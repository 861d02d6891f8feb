/**
 * What people write into a shout, formatting and attacks alike: each attack, if any page
 * drew it as markup, would set `window.__xss` or leave an element behind.
 */
export const WRITTEN = [
  '**bold** *italic* _italic_ `code` ~~struck~~ ||spoiler|| https://example.org/a_(b)?c=1#d.',
  '<script>window.__xss = 1</script>',
  '<img src=x onerror="window.__xss = 1">',
  '[click](javascript:window.__xss=1) javascript:window.__xss=1 data:text/html,<script>window.__xss=1</script>',
  '**<b>bold markup</b>** `<i>code</i>`',
  '"><svg onload="window.__xss = 1"> \' onmouseover=\'window.__xss = 1\' x="',
  '||<svg onload="window.__xss = 1">||',
  'unclosed **markers _here ~~and ||there `too',
  'tabs\tand\nlines, é ü ğ 😄 \u200b zero width'
]
