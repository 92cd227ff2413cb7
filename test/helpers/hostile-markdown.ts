// Hostile Markdown shared by the renderer's safety tests and the speed benchmark
// (`npm run bench -- hostile`): a realm whose every name is an injection attempt, and inputs
// built to break out of HTML or to make a parser backtrack.
import type { MarkdownContext } from '../../src/domain/markdown/index.js';
import { testContext } from './markdown-context.js';

export const evil = '"><img src=x onerror=alert(1)>';

export const hostileContext: MarkdownContext = testContext({
  userByName: (name) => (name === 'x' ? { id: 1, fullName: evil } : null),
  groupByName: (name) => (name === 'g' ? { id: 2, name: evil } : null),
  channelByName: (name) => (name === 'c' ? { id: 3, name: evil } : null),
  realmEmoji: (name) => (name === 'e' ? { id: '4', name: evil, url: `/e.png${evil}` } : null),
  linkifiers: [
    { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x.example/{id}' },
    { id: 2, pattern: '!(?P<s>\\S+)', urlTemplate: 'https://x.example/{+s}' },
  ],
});

export const big = (unit: string, size = 100_000): string => unit.repeat(Math.ceil(size / unit.length));

export const hostileInputs: Array<[string, string]> = [
  ['script tag', '<script>alert(1)</script>'],
  ['html block', '<div onclick="alert(1)">\n<script>x</script>\n</div>'],
  ['javascript link', '[x](javascript:alert(1))'],
  ['javascript autolink', '<javascript:alert(1)>'],
  ['entity-encoded scheme', '[x](&#106;avascript:alert(1)) [y](java&#x09;script:alert(1))'],
  ['spaced scheme', '[x]( javascript:alert(1))'],
  ['data link', '[x](data:text/html;base64,PHNjcmlwdD4=)'],
  ['attribute breakout in link', '[x](https://a.example/" onmouseover="alert(1))'],
  ['attribute breakout in title', '[x](https://a.example/ "t\\" onmouseover=\\"alert(1)")'],
  ['bare onmouseover', '"onmouseover=alert(1) \'onfocus=x'],
  ['hostile names', '@**x** @_**x** @*g* @_*g* #**c** #**c>t** #**c>t@1** :e:'],
  ['hostile typed names', `@**${evil}** #**${evil}** @*${evil}* :${evil}:`],
  ['hostile topic', `#**c>${evil}**`],
  ['hostile code language', '```"><script>\nx\n```'],
  ['hostile spoiler header', `\`\`\`spoiler ${evil}\nx\n\`\`\``],
  ['hostile linkifier value', `!"onmouseover=alert(1) !javascript:alert(1) !${evil}`],
  ['nested quotes 1000 deep', '>'.repeat(1000) + ' deep'],
  ['nested quote lines', Array.from({ length: 1000 }, (_, i) => `${'>'.repeat(i + 1)} x`).join('\n')],
  ['nested lists 1000 deep', Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')],
  ['nested quote fences', '```quote\n'.repeat(2000)],
  ['nested spoilers', '```spoiler a\n'.repeat(2000) + '```\n'.repeat(2000)],
  ['10,000 backticks', '`'.repeat(10_000)],
  ['backtick runs', big('`a``b```c', 20_000)],
  ['unterminated fence', '```\n' + big('x\n', 20_000)],
  ['many fences', big('```\na\n', 20_000)],
  ['stars', '*'.repeat(10_000)],
  ['emphasis ladder', big('*a _b ', 20_000)],
  ['brackets', '['.repeat(10_000)],
  ['link openers', big('[a](', 20_000)],
  ['mention openers', big('@**', 20_000)],
  ['group openers', big('@*', 20_000)],
  ['channel openers', big('#**', 20_000)],
  ['colons', ':'.repeat(20_000)],
  ['emoji name soup', big(':a', 20_000)],
  ['dollars', '$'.repeat(20_000)],
  ['angle brackets', '<'.repeat(20_000)],
  ['urls', big('http://a.example/', 20_000)],
  ['emoji characters', '👍🏽'.repeat(5_000)],
  ['wide table', `${'| a '.repeat(2_000)}|\n${'|---'.repeat(2_000)}|\n${'| b '.repeat(2_000)}|`],
  ['long table', '| a | b |\n|---|---|\n' + big('| x | y |\n', 20_000)],
  ['linkifier soup', big('#1 !x ', 20_000)],
  ['100 KB of everything', big('**@**x** #**c>t** :smile: 👍 [l](/user_uploads/1/a.png) `c` #12 https://a.example\n> q\n- l\n\n', 100_000)],
];
