import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expandUrlTemplate, urlTemplateVariables, validateUrlTemplate } from '../../src/domain/url-template.js';

// Values and expectations follow the examples of RFC 6570, section 3.2.
const vars: Record<string, string> = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  empty: '',
  x: '1024',
  y: '768',
  half: '50%',
};

const Expand = suite('url-template: expansion');

const table: Array<[string, string]> = [
  ['{var}', 'value'],
  ['{hello}', 'Hello%20World%21'],
  ['{half}', '50%25'],
  ['{+var}', 'value'],
  ['{+hello}', 'Hello%20World!'],
  ['{+path}/here', '/foo/bar/here'],
  ['here?ref={+path}', 'here?ref=/foo/bar'],
  ['{#var}', '#value'],
  ['{#hello}', '#Hello%20World!'],
  ['map?{x,y}', 'map?1024,768'],
  ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['X{.var}', 'X.value'],
  ['X{.x,y}', 'X.1024.768'],
  ['{/var}', '/value'],
  ['{/var,x}/here', '/value/1024/here'],
  ['{;x,y}', ';x=1024;y=768'],
  ['{;x,y,empty}', ';x=1024;y=768;empty'],
  ['{?x,y}', '?x=1024&y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
  ['{var:3}', 'val'],
  ['{var:30}', 'value'],
  ['{/var*}', '/value'],
  ['{?undef}', ''],
  ['{undef}x', 'x'],
  ['{x,undef,y}', '1024,768'],
  ['https://example.com/issues/{var}', 'https://example.com/issues/value'],
];

for (const [template, expected] of table) {
  Expand(`${template} → ${expected}`, () => {
    assert.is(expandUrlTemplate(template, vars), expected);
  });
}

Expand('values are UTF-8 percent-encoded; reserved expansion keeps existing escapes', () => {
  assert.is(expandUrlTemplate('{v}', { v: 'é/ü' }), '%C3%A9%2F%C3%BC');
  assert.is(expandUrlTemplate('{+v}', { v: '%41b c' }), '%41b%20c');
  assert.is(expandUrlTemplate('{v}', { v: '\uD800x' }), '%EF%BF%BDx');
});

Expand('values cannot inject template or URL syntax', () => {
  assert.is(expandUrlTemplate('https://x/{id}', { id: '"><script>' }), 'https://x/%22%3E%3Cscript%3E');
  assert.is(expandUrlTemplate('https://x/?q={id}', { id: 'a&b=c#d' }), 'https://x/?q=a%26b%3Dc%23d');
});

Expand('an invalid template expands to the empty string', () => {
  assert.is(expandUrlTemplate('https://x/{id', { id: '1' }), '');
});

Expand.run();

const Validate = suite('url-template: validation');

Validate('valid templates', () => {
  for (const t of ['https://example.com/issues/{id}', 'https://x/{org}/{repo}/pull/{id}', '{+base}{/path}{?q,lang}', 'https://x/%20{id}', 'plain']) {
    assert.is(validateUrlTemplate(t), null, t);
  }
});

Validate('invalid templates get a message', () => {
  const bad = ['https://x/{id', 'https://x/id}', 'https://x/{}', 'https://x/{a b}', 'https://x/{=id}', 'https://x/{|id}',
    'https://x/{id:0}', 'https://x/{id:10000}', 'https://x/{{id}}', 'https://x/ {id}', 'https://x/"{id}', 'https://x/%zz{id}',
    'https://x/{id-x}', 'https://x/{.}'];
  for (const t of bad) {
    const error = validateUrlTemplate(t);
    assert.type(error, 'string', t);
    assert.ok(error!.startsWith('Invalid URL template: '), t);
  }
});

Validate('urlTemplateVariables lists each variable once, in order', () => {
  assert.equal(urlTemplateVariables('https://x/{org}/{repo}{?org,id:3}'), ['org', 'repo', 'id']);
});

Validate.run();
