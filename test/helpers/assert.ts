// Assertions on API responses: success envelopes and exact error bodies.
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.js';
import type { TestResponse } from './server.js';

export function assertSuccess(res: TestResponse): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (res.status !== 200 || res.json.result !== 'success') {
    assert.unreachable(`expected success, got ${res.status}: ${res.text.slice(0, 500)}`);
  }
  assert.is(res.json.msg, '');
  return res.json;
}

export function assertError(res: TestResponse, msg: string, status = 400, code?: string): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.is(res.json.result, 'error', `expected an error, got ${res.status}: ${res.text.slice(0, 300)}`);
  assert.is(res.json.msg, msg);
  assert.is(res.status, status, `status for "${msg}"`);
  assert.type(res.json.code, 'string');
  if (code !== undefined) assert.is(res.json.code, code);
  return res.json;
}

/** Run f and return the ApiError it throws (fails the test if it throws nothing or something else). */
export function catchApiError(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return assert.unreachable('expected an ApiError') as never;
}
