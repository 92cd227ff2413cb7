// Fixtures for tests of people and the organization: one account of every role, and images to
// upload as multipart bodies.
import { oneOfEachRole, type OneOfEachRole } from './roles.js';
import type { TestRealm, TestResponse, TestUser } from './server.js';

export type EveryRole = OneOfEachRole;

/** The realm's owner plus one new account of each other role and a bot owned by the owner. */
/** One user of each role (the bot is owned by the owner). */
export const everyRole = (realm: TestRealm): Promise<EveryRole> => oneOfEachRole(realm, { botOwner: 'owner' });

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201b2cc0a4d0000000049454e44ae426082',
  'hex',
);

const BOUNDARY = 'parley-test-boundary';

/** A multipart/form-data body with text fields and files. */
export function multipart(fields: Record<string, string>, files: Record<string, { filename: string; data: Buffer }>) {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [name, f] of Object.entries(files)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${f.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(f.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

/** POST (or another method) one file, and optionally text fields, as multipart. */
export function uploadFile(u: TestUser, path: string, data: Buffer | null, fields: Record<string, string> = {}, method = 'POST'): Promise<TestResponse> {
  const m = multipart(fields, data ? { file: { filename: 'upload.png', data } } : {});
  return u.request(method, path, {}, { body: m.body, contentType: m.contentType });
}
