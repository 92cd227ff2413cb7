import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { catchApiError } from '../helpers/assert.js';
import { parseParams, parseUrlEncoded } from '../../src/http/body.js';


const form = suite('form-urlencoded');

form('decodes + and percent escapes, later keys win', () => {
  assert.equal({ ...parseUrlEncoded('a=1+2&b=%C3%A9t%C3%A9&a=3&flag&empty=') }, { a: '3', b: 'été', flag: '', empty: '' });
});

form('pairs without `=` before and after one with it, empty pairs, `=` inside a value', () => {
  assert.equal({ ...parseUrlEncoded('a&b&=e&&c=1=2&d&') }, { a: '', b: '', '': 'e', c: '1=2', d: '' });
  assert.equal({ ...parseUrlEncoded('x=1&y') }, { x: '1', y: '' });
  assert.equal({ ...parseUrlEncoded('') }, {});
});

form('parameters named like Object.prototype members are parameters like any other', () => {
  const p = parseUrlEncoded('__proto__=x&constructor=y&toString=z');
  assert.equal(Object.keys(p), ['__proto__', 'constructor', 'toString']);
  assert.is(p['__proto__'], 'x');
  assert.is(p.constructor as unknown, 'y');
  assert.is(p.toString as unknown, 'z');
  // Nothing inherited either: a name that was not sent reads as absent.
  const q = parseUrlEncoded('a=1');
  assert.is(q.constructor, undefined);
  assert.is('hasOwnProperty' in q, false);
});

form('query first, body on top', () => {
  const { params } = parseParams('a=q&b=q', Buffer.from('b=body&c=body'), 'application/x-www-form-urlencoded; charset=utf-8');
  assert.equal({ ...params }, { a: 'q', b: 'body', c: 'body' });
});

form('invalid percent-encoding and invalid UTF-8 are 400s', () => {
  assert.is(catchApiError(() => parseParams('a=%E0%A4%A', null, undefined)).status, 400);
  assert.is(catchApiError(() => parseParams('a=%FF', null, undefined)).status, 400);
  const e = catchApiError(() => parseParams('', Buffer.from([0x61, 0x3d, 0xff, 0xfe]), 'application/x-www-form-urlencoded'));
  assert.is(e.message, 'Request body is not valid UTF-8');
});

form('other media types are refused', () => {
  const e = catchApiError(() => parseParams('', Buffer.from('{"a":1}'), 'application/json'));
  assert.is(e.status, 415);
  assert.is(e.code, 'UNSUPPORTED_MEDIA_TYPE');
});

const multipart = suite('multipart/form-data');
const B = 'XyZ123';
const part = (name: string, value: string, filename?: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/plain` : ''}\r\n\r\n${value}\r\n`;

multipart('fields and files', () => {
  const body = Buffer.from(part('content', 'hello\r\nworld') + part('to', '[1,2]') + part('file', 'DATA', 'a.txt') + `--${B}--\r\n`);
  const { params, files } = parseParams('x=1', body, `multipart/form-data; boundary=${B}`);
  assert.equal({ ...params }, { x: '1', content: 'hello\r\nworld', to: '[1,2]' });
  assert.is(files.length, 1);
  assert.is(files[0]!.filename, 'a.txt');
  assert.is(files[0]!.contentType, 'text/plain');
  assert.is(files[0]!.data.toString(), 'DATA');
});

multipart('quoted boundary', () => {
  const body = Buffer.from(part('a', 'b') + `--${B}--`);
  assert.equal({ ...parseParams('', body, `multipart/form-data; boundary="${B}"`).params }, { a: 'b' });
});

const broken: Array<[string, string]> = [
  ['truncated body', part('a', 'b').slice(0, -10)],
  ['no closing delimiter', part('a', 'b')],
  ['truncated headers', `--${B}\r\nContent-Disposition: form-data; name="a"`],
  ['no name', `--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${B}--`],
  ['garbage', 'hello there'],
  // A NUL in a file name reached Postgres: POST /user_uploads answered 500 (found by fuzzing).
  ['a NUL in a file name', `--${B}\r\nContent-Disposition: form-data; name="f"; filename="a\u0000b.png"\r\n\r\nx\r\n--${B}--`],
  ['a NUL in a field name', `--${B}\r\nContent-Disposition: form-data; name="a\u0000"\r\n\r\nx\r\n--${B}--`],
];
for (const [label, text] of broken) {
  multipart(`rejects ${label}`, () => {
    const e = catchApiError(() => parseParams('', Buffer.from(text), `multipart/form-data; boundary=${B}`));
    assert.is(e.status, 400);
    assert.ok(e.message.startsWith('Malformed request body'), e.message);
  });
}

multipart('missing boundary and invalid UTF-8 in a field', () => {
  assert.is(catchApiError(() => parseParams('', Buffer.from('x'), 'multipart/form-data')).status, 400);
  const bad = Buffer.concat([Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\n`), Buffer.from([0xc3, 0x28]), Buffer.from(`\r\n--${B}--`)]);
  assert.is(catchApiError(() => parseParams('', bad, `multipart/form-data; boundary=${B}`)).message, 'Request body is not valid UTF-8');
});

form.run();
multipart.run();
