// Where the start-up restore reads the event log from (store/queues.ts logCursor).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logCursor } from '../../src/store/queues.js';

const t = suite('event log cursor');

t("the least of the queues' cursors, each the later of its start and its acknowledgement", () => {
  assert.is(
    logCursor([
      { start_event_id: 10, acked_event_id: 40 },
      { start_event_id: 30, acked_event_id: 5 },
      { start_event_id: 50, acked_event_id: 50 },
    ]),
    30,
  );
});

t("a large organization's queues: 300,000 of them", () => {
  const rows = Array.from({ length: 300_000 }, (_, i) => ({ start_event_id: 1_000_000 - i, acked_event_id: 0 }));
  assert.is(logCursor(rows), 1_000_000 - 299_999);
});

t.run();
