// Queue descriptors are shared: queues that registered alike, or were restored alike, hold one
// descriptor object (with its arrays), and a stored descriptor is validated once per shape.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDescriptor, sharedDescriptor, type QueueDescriptor } from '../../src/actors/queues/descriptor.js';
import { NO_CAPABILITIES } from '../../src/domain/client-capabilities.js';

/** A descriptor as POST /register builds it. */
const live = (o: Partial<QueueDescriptor> = {}): QueueDescriptor => ({
  eventTypes: ['message'],
  narrow: [],
  allPublicStreams: false,
  capabilities: NO_CAPABILITIES,
  applyMarkdown: false,
  clientExtavatar: true,
  ...o,
});
/** The same, as read back from its jsonb column as text. */
const stored = (d: QueueDescriptor): string => JSON.stringify(d);

const t = suite('queue descriptors');

t('equal descriptors are one object; different ones are not', () => {
  const a = sharedDescriptor(live());
  assert.is(sharedDescriptor(live()), a);
  assert.is.not(sharedDescriptor(live({ applyMarkdown: true })), a);
  assert.is.not(sharedDescriptor(live({ eventTypes: null })), a);
});

t('a stored descriptor is validated once per shape, and is the live one of that shape', () => {
  const shape = live({ eventTypes: ['typing'], narrow: [{ operator: 'channel', operand: 'design', negated: false }] });
  const parsed = parseDescriptor(stored(shape));
  assert.equal(parsed, shape);
  assert.is(parseDescriptor(stored(shape)), parsed);
  assert.is(sharedDescriptor(live({ eventTypes: ['typing'], narrow: [{ operator: 'channel', operand: 'design', negated: false }] })), parsed);
});

t('a stored descriptor keeps only the capabilities Parley knows, and is still checked', () => {
  const raw = { ...live({ eventTypes: ['presence'] }), capabilities: { bogus: true } };
  assert.equal(parseDescriptor(JSON.stringify(raw)).capabilities, NO_CAPABILITIES);
  assert.throws(() => parseDescriptor(JSON.stringify({ ...raw, narrow: 'all' })));
});

t.run();
