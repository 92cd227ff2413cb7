// Malformed requests for every operation of the OpenAPI document (GET /api/v1/openapi.json):
// the operations are read from the document, and each generated case varies the caller, the
// host, the path segments, every parameter (valid, malformed, missing), extra parameters, where
// parameters travel (query, form, multipart), the content type and the body's integrity.
import fc from 'fast-check';
import type { ApiRequest } from '../../src/http/dispatch.js';
import { PNG } from './people.js';
import { badPiece, describePiece, pathSegment, percentEncode, pieceBytes, validPiece, type Piece, type Pools, type Schema } from './fuzz-values.js';

export interface FuzzParam {
  readonly name: string;
  readonly required: boolean;
  readonly schema: Schema;
  readonly json: boolean;
}

export interface FuzzOp {
  readonly method: string;
  /** The path template, e.g. `/api/v1/messages/{message_id}`. */
  readonly path: string;
  readonly pathParams: readonly FuzzParam[];
  readonly params: readonly FuzzParam[];
  readonly auth: 'user' | 'optional' | 'none';
}

type Json = Record<string, unknown>;

/** Every operation of an OpenAPI document built by src/http/openapi.ts. */
export function operationsOf(doc: Json): FuzzOp[] {
  const ops: FuzzOp[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = (op.parameters ?? []) as Array<{ name: string; in: string; required: boolean; schema: Schema }>;
      const toParam = (name: string, required: boolean, schema: Schema): FuzzParam => ({ name, required, schema, json: schema['x-json-encoded'] === true });
      const pathParams = parameters.filter((p) => p.in === 'path').map((p) => toParam(p.name, true, p.schema));
      let params = parameters.filter((p) => p.in === 'query').map((p) => toParam(p.name, p.required, p.schema));
      const body = (op.requestBody as Json | undefined)?.content as Record<string, { schema: Json }> | undefined;
      const form = body?.['application/x-www-form-urlencoded']?.schema;
      if (form) {
        const required = new Set(form.required as string[]);
        params = Object.entries(form.properties as Record<string, Schema>).map(([n, s]) => toParam(n, required.has(n), s));
      }
      const security = op.security as unknown[];
      const auth = security.length === 0 ? 'none' : security.length > 1 ? 'optional' : 'user';
      ops.push({ method: method.toUpperCase(), path, pathParams, params, auth });
    }
  }
  return ops;
}

export type Caller = 'member' | 'owner' | 'anonymous' | 'badAuth';
type ContentTypeMode = 'normal' | 'none' | 'json' | 'text' | 'noBoundary' | 'wrongBoundary' | 'garbage' | 'charset';

export interface FuzzCase {
  readonly caller: Caller;
  /** Index into the fixture's list of broken Authorization headers. */
  readonly badAuth: number;
  readonly host: 'realm' | 'other' | 'unknown';
  readonly segments: Readonly<Record<string, Piece>>;
  readonly params: ReadonlyArray<readonly [string, Piece]>;
  readonly placement: 'query' | 'form' | 'multipart' | 'split';
  readonly contentType: ContentTypeMode;
  /** Cut the body to this fraction of its length (null: whole). */
  readonly truncate: number | null;
  readonly file: { readonly field: string; readonly filename: string; readonly data: Buffer } | null;
  readonly headers: Readonly<Record<string, string>>;
}

const EXTRA_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'extra', 'api_key', 'user_id', 'stream_id', 'content', 'queue_id', '', ' ', 'a[]', 'a.b', 'é'];
const FILENAMES = ['a.png', '', '../../../secret.key', '..', 'a/b/c.txt', 'C:\\x\\y.png', 'x'.repeat(1000), 'a\u0000b.png', 'é😀.gif', '%2F.png', '.htaccess', 'a"b.png'];

function paramArb(p: FuzzParam, pools: Pools): fc.Arbitrary<{ mode: 'valid' | 'bad' | 'omit'; valid: Piece; bad: Piece }> {
  const weights: Array<{ weight: number; arbitrary: fc.Arbitrary<'valid' | 'bad' | 'omit'> }> = p.required
    ? [{ weight: 7, arbitrary: fc.constant('valid') }, { weight: 2, arbitrary: fc.constant('bad') }, { weight: 1, arbitrary: fc.constant('omit') }]
    : [{ weight: 3, arbitrary: fc.constant('valid') }, { weight: 1, arbitrary: fc.constant('bad') }, { weight: 4, arbitrary: fc.constant('omit') }];
  return fc.record({ mode: fc.oneof(...weights), valid: validPiece(p.schema, p.json, pools), bad: badPiece() });
}

/** The arbitrary of cases for one operation. About a third are clean (every value plausible). */
export function caseArb(op: FuzzOp, pools: Pools, badAuthCount: number): fc.Arbitrary<FuzzCase> {
  const segments = fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathSegment(p.schema, pools)])) as Record<string, fc.Arbitrary<Piece>>);
  const params = fc.tuple(...op.params.map((p) => paramArb(p, pools)));
  const extras = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...EXTRA_NAMES), fc.constantFrom(...op.params.map((p) => p.name), 'x')), fc.oneof(badPiece(), validPiece({}, false, pools))), { maxLength: 2 });
  return fc
    .record({
      clean: fc.nat(3).map((n) => n === 0),
      caller: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Caller>('member') },
        { weight: 4, arbitrary: fc.constant<Caller>('owner') },
        { weight: 1, arbitrary: fc.constant<Caller>('anonymous') },
        { weight: 1, arbitrary: fc.constant<Caller>('badAuth') },
      ),
      badAuth: fc.nat(badAuthCount - 1),
      host: fc.oneof({ weight: 18, arbitrary: fc.constant<'realm'>('realm') }, fc.constant<'other'>('other'), fc.constant<'unknown'>('unknown')),
      segments,
      params,
      extras,
      placement: fc.oneof(
        { weight: 6, arbitrary: fc.constant<'form'>('form') },
        { weight: 1, arbitrary: fc.constant<'query'>('query') },
        { weight: 2, arbitrary: fc.constant<'multipart'>('multipart') },
        { weight: 1, arbitrary: fc.constant<'split'>('split') },
      ),
      contentType: fc.oneof(
        { weight: 14, arbitrary: fc.constant<ContentTypeMode>('normal') },
        fc.constantFrom<ContentTypeMode>('none', 'json', 'text', 'noBoundary', 'wrongBoundary', 'garbage', 'charset'),
      ),
      truncate: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, fc.double({ min: 0, max: 1, noNaN: true })),
      file: fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        fc.record({
          field: fc.constantFrom('file', 'f1', 'avatar', ''),
          filename: fc.constantFrom(...FILENAMES),
          data: fc.oneof(fc.constant(PNG), fc.constant(Buffer.alloc(0)), fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)), fc.constant(Buffer.alloc(300_000, 0x41))),
        }),
      ),
      idempotencyKey: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, fc.constantFrom('k1', '', ' ', 'x'.repeat(5000), 'é\u0000')),
    })
    .map((r): FuzzCase => {
      const list: Array<readonly [string, Piece]> = [];
      op.params.forEach((p, i) => {
        const v = r.params[i]!;
        const mode = r.clean && v.mode === 'bad' ? 'valid' : v.mode;
        if (mode !== 'omit') list.push([p.name, mode === 'valid' ? v.valid : v.bad]);
      });
      if (!r.clean) list.push(...r.extras);
      const c: FuzzCase = {
        caller: r.caller,
        badAuth: r.badAuth,
        host: r.clean ? 'realm' : r.host,
        segments: r.segments,
        params: list,
        placement: op.method === 'GET' && r.placement !== 'split' ? 'query' : r.placement,
        contentType: r.clean ? 'normal' : r.contentType,
        truncate: r.clean ? null : r.truncate,
        file: r.file,
        headers: r.idempotencyKey === null ? {} : { 'idempotency-key': r.idempotencyKey },
      };
      // fast-check prints counterexamples with this (values of 100 kB shortened).
      return Object.assign(c, { [fc.toStringMethod]: () => describeCase(op, c) });
    });
}

export interface RequestTargets {
  readonly hosts: { readonly realm: string; readonly other: string; readonly unknown: string };
  readonly auth: Readonly<Record<'member' | 'owner', string>>;
  readonly badAuth: readonly string[];
}

const BOUNDARY = 'fuzz-boundary-7';
const formOf = (params: ReadonlyArray<readonly [string, Piece]>) => params.map(([k, v]) => `${percentEncode({ text: k })}=${percentEncode(v)}`).join('&');

function multipartOf(params: ReadonlyArray<readonly [string, Piece]>, file: FuzzCase['file']): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of params) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n`), pieceBytes(v), Buffer.from('\r\n'));
  }
  if (file) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(file.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

const CONTENT_TYPES: Record<Exclude<ContentTypeMode, 'normal' | 'none'>, string> = {
  json: 'application/json',
  text: 'text/plain',
  noBoundary: 'multipart/form-data',
  wrongBoundary: 'multipart/form-data; boundary=not-the-boundary',
  garbage: `;;;=="; boundary="${'x'.repeat(300)}`,
  charset: 'application/x-www-form-urlencoded; charset=iso-8859-1',
};

/** The request a case describes, ready for dispatch(). */
export function buildRequest(op: FuzzOp, c: FuzzCase, t: RequestTargets): ApiRequest {
  const path = op.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => percentEncode(c.segments[name] ?? { text: 'x' }));
  const headers: Record<string, string> = { host: t.hosts[c.host], ...c.headers };
  if (c.caller === 'member' || c.caller === 'owner') headers.authorization = t.auth[c.caller];
  else if (c.caller === 'badAuth') headers.authorization = t.badAuth[c.badAuth]!;
  let query = '';
  let body: Buffer | null = null;
  const half = Math.ceil(c.params.length / 2);
  const inQuery = c.placement === 'query' ? c.params : c.placement === 'split' ? c.params.slice(0, half) : [];
  const inBody = c.placement === 'query' ? [] : c.placement === 'split' ? c.params.slice(half) : c.params;
  query = formOf(inQuery);
  if (inBody.length > 0 || c.file) {
    if (c.contentType === 'json') body = Buffer.from(JSON.stringify(Object.fromEntries(inBody.map(([k, v]) => [k, describePiece(v)]))));
    else if (c.placement === 'multipart' || (c.file && c.placement !== 'query')) body = multipartOf(inBody, c.file);
    else body = Buffer.from(formOf(inBody));
    const multipart = c.placement === 'multipart' || c.file !== null;
    if (c.contentType === 'normal') headers['content-type'] = multipart ? `multipart/form-data; boundary=${BOUNDARY}` : 'application/x-www-form-urlencoded';
    else if (c.contentType !== 'none') headers['content-type'] = CONTENT_TYPES[c.contentType];
    if (c.truncate !== null) body = body.subarray(0, Math.floor(body.length * c.truncate));
  }
  return { method: op.method, path, query, headers, body, remoteAddress: '127.0.0.1' };
}

/** A case in a few lines, for failure reports. */
export function describeCase(op: FuzzOp, c: FuzzCase): string {
  const segs = Object.entries(c.segments).map(([k, v]) => `${k}=${describePiece(v)}`);
  const params = c.params.map(([k, v]) => `${k}=${describePiece(v)}`);
  return [
    `${op.method} ${op.path} as ${c.caller}${c.caller === 'badAuth' ? `#${c.badAuth}` : ''} at ${c.host} host`,
    `  path: ${segs.join(' ') || '-'}`,
    `  params (${c.placement}, content type ${c.contentType}${c.truncate === null ? '' : `, truncated to ${c.truncate.toFixed(2)}`}): ${params.join(' ') || '-'}`,
    `  file: ${c.file ? `${c.file.field} ${JSON.stringify(c.file.filename.slice(0, 40))} ${c.file.data.length} bytes` : '-'}; headers: ${JSON.stringify(c.headers).slice(0, 80)}`,
  ].join('\n');
}
