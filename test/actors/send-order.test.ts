// A pipelined batch of sends in its transaction (src/actors/conversations/send.ts, commit-order.ts):
// it may read what it needs while the batch before it runs, but inserts its messages (which takes
// their ids from the sequence) only once that batch has inserted its own, and takes row locks
// (here an idempotency key) only once that batch has written all it writes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CommonQueryMethods } from 'slonik';
import { orderOf, Turn } from '../../src/actors/commit-order.js';
import { sendMessages, type SendInput } from '../../src/actors/conversations/send.js';
import type { WriteContext } from '../../src/actors/conversations/conversations.js';
import { MutedUsers } from '../../src/actors/realm/muted-users.js';

const t = suite('send order');

const tick = () => new Promise((r) => setImmediate(r));

/**
 * A transaction that records the first words of each write: it answers reads (none found), the
 * message and the recipient inserts, and nothing after.
 */
function recordingTx(statements: string[]): CommonQueryMethods {
  const answer = (q: { sql: string }) => {
    const words = q.sql.trim().split(/\s+/).slice(0, 3).join(' ');
    if (words.startsWith('SELECT')) return Promise.resolve([]);
    statements.push(words);
    if (words === 'INSERT INTO messages') return Promise.resolve([{ id: 10, sender_id: 1, content: 'x', date_sent: 0 }]);
    if (words.startsWith('WITH msgs AS')) return Promise.resolve([]);
    return new Promise<never>(() => undefined);
  };
  return { any: answer, anyFirst: answer, many: answer, one: answer, maybeOne: answer, query: answer } as unknown as CommonQueryMethods;
}

function context(statements: string[]): WriteContext {
  const tx = recordingTx(statements);
  return {
    // No earlier send holds the key.
    services: { clock: { now: () => 0 }, db: { any: () => Promise.resolve([]) } },
    // Nobody muted anyone.
    realm: { id: 1, state: { mutes: new MutedUsers() } },
    write: (work: (tx: CommonQueryMethods, emit: () => void) => Promise<unknown>) => work(tx, () => undefined),
  } as unknown as WriteContext;
}

// A message to oneself.
const input: SendInput = {
  senderId: 1,
  dm: { key: '1', userIds: [1] },
  content: 'x',
  rendered: { html: '<p>x</p>', hasLink: false, hasImage: false, hasAttachment: false, uploadPathIds: [] },
  isMeMessage: false,
  mentionedUserIds: [],
  streamWildcard: false,
  topicWildcard: false,
  readBySender: false,
  client: 'test',
  idempotencyKey: 'k',
  linkifiers: [],
};

t('a batch inserts its messages once the batch before has, and claims its key once that batch has written all', async () => {
  const statements: string[] = [];
  const before = new Turn(null);
  void sendMessages(context(statements), [input], orderOf([new Turn(before)]));
  await tick();
  assert.equal(statements, [], 'waits for the batch before to insert its messages');
  before.pass('messages');
  await tick();
  assert.equal(statements, ['INSERT INTO messages', 'WITH msgs AS'], 'adds its own rows, then waits');
  before.pass('events');
  await tick();
  assert.equal(statements, ['INSERT INTO messages', 'WITH msgs AS', 'INSERT INTO idempotency_keys']);
});

t('a batch that follows nothing does not wait; holding a key, it lets the next start only once it is over', async () => {
  const statements: string[] = [];
  const keyed = new Turn(null);
  void sendMessages(context(statements), [input], orderOf([keyed]));
  await tick();
  assert.equal(statements, ['INSERT INTO messages', 'WITH msgs AS', 'INSERT INTO idempotency_keys']);
  assert.is(keyed.hasPassed('messages'), false, 'a duplicate would fail it, and its retries take new ids');
  const plain = new Turn(null);
  void sendMessages(context([]), [{ ...input, idempotencyKey: undefined }], orderOf([plain]));
  await tick();
  assert.is(plain.hasPassed('messages'), true);
});

t.run();
