// The model test (issue 7): random sequences of subscribe, unsubscribe, send, edit, move, role
// change, deactivate and reactivate over a cast of four users and four kinds of channel; after
// every step, what each user reads and receives must be exactly what the model (access-model.ts)
// allows. MODEL_SEQUENCES sets how many sequences run, MODEL_SEED replays a run; a failure is
// shrunk by fast-check and printed with its seed and path.
import fc from 'fast-check';
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { commandArb, describe, runCommand, type Command } from './commands.js';
import { World } from './world.js';

const SEQUENCES = Number(process.env.MODEL_SEQUENCES ?? 300);
/** Sequences per organization: later sequences start from the state earlier ones left. */
const PER_ORGANIZATION = 50;
const seed = process.env.MODEL_SEED !== undefined ? Number(process.env.MODEL_SEED) : Math.floor(Math.random() * 2 ** 31);

/** Sequences that once found a bug: always run first. */
const REGRESSIONS: Command[][] = [
  // peer_remove was sent to the user who left, too.
  [{ kind: 'unsubscribe', who: 'owner', channel: 'public' }],
  // The sender, not subscribed, lost the moved message's row and heard nothing.
  [
    { kind: 'send', by: 'member', to: 'public', topic: 'alpha' },
    { kind: 'move', by: 'owner', message: 0, channel: 'web', topic: null },
  ],
  // A deactivated subscriber of a protected channel got a row for a message moved in.
  [
    { kind: 'subscribe', by: 'owner', who: 'member', channel: 'protected' },
    { kind: 'send', by: 'owner', to: 'public', topic: 'alpha' },
    { kind: 'deactivate', who: 'member' },
    { kind: 'move', by: 'owner', message: 0, channel: 'protected', topic: null },
    { kind: 'reactivate', who: 'member' },
  ],
  // A member moved their own message within a protected channel they had left.
  [
    { kind: 'subscribe', by: 'owner', who: 'member', channel: 'protected' },
    { kind: 'send', by: 'member', to: 'protected', topic: 'beta' },
    { kind: 'unsubscribe', who: 'member', channel: 'protected' },
    { kind: 'move', by: 'member', message: 0, channel: null, topic: 'alpha' },
  ],
];

let server: TestServer;
let world: World | null = null;
let organizations = 0;
let used = 0;
let steps = 0;
let sequences = 0;

async function freshWorld(): Promise<World> {
  if (world === null || used >= PER_ORGANIZATION) {
    world = await World.create(server, ++organizations);
    used = 0;
  }
  used++;
  return world;
}

async function runSequence(commands: readonly Command[]): Promise<void> {
  const w = await freshWorld();
  sequences++;
  w.startSequence();
  try {
    for (const [i, c] of commands.entries()) {
      const step = `step ${i + 1} ${describe(c)}`;
      const expected = await runCommand(w, c, step);
      steps++;
      await w.checkEvents(expected, step);
      await w.checkReads(step);
    }
  } catch (e) {
    // The server and the model may now disagree: the next sequence starts in a new organization.
    world = null;
    throw e;
  }
}

const model = suite('model test: reads and events follow the access model');

model.before(async () => {
  server = await startTestServer();
});

model(`${SEQUENCES} random sequences`, async () => {
  const started = performance.now();
  process.stdout.write(`model test: seed ${seed}, ${SEQUENCES} sequences (MODEL_SEED=${seed} replays)\n`);
  await fc.assert(
    fc.asyncProperty(fc.array(commandArb, { minLength: 3, maxLength: 6 }), (commands) => runSequence(commands)),
    { numRuns: SEQUENCES, seed, includeErrorInReport: true, examples: REGRESSIONS.map((r) => [r] as [Command[]]) },
  );
  const s = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`model test: ${sequences} sequences, ${steps} steps, ${organizations} organizations, ${s} s\n`);
});

model.after(async () => {
  await server.close();
});

model.run();
