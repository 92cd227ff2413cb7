// The realm actor: one per organization (`realm-<id>`). It serialises the organization's
// realm-wide writes (users, groups, settings …), owns the cached RealmState and emits the
// events of those writes. Commands are typed functions in a table (commands.ts), one module per
// resource; the actor runs one at a time, replies with a value or an ApiError, and after an
// unexpected error reloads its state from Postgres before the next command.
import type { CommonQueryMethods } from 'slonik';
import { isApiError } from '../../domain/errors.js';
import { isDatabaseUnavailable } from '../../store/database.js';
import { writeWithEvents, type Emit, type RealmEventStream } from '../realm-events.js';
import { ask, fail, ok, reply, spawnActor, type Ref, type Reply } from '../runtime.js';
import type { Services } from '../../services.js';
import { RealmPresence } from '../presence/realm-presence.js';
import { RealmQueues } from '../queues/realm-queues.js';
import { Conversations } from '../conversations/conversations.js';
import { FullMemberClock } from './full-members.js';
import { RetentionSweeper } from '../conversations/retention.js';
import { realmCommands, type CommandInput, type CommandName, type CommandOutput } from './commands.js';
import { loadRealmState, type RealmState } from './state.js';

export type RealmMsg =
  | { readonly kind: 'command'; readonly name: CommandName; readonly input: unknown; readonly replyTo: Ref<Reply<unknown>> }
  | { readonly kind: 'reload'; readonly replyTo: Ref<Reply<null>> };

/** What a command sees. Call `write` for every change: it is the only way events get out. */
export interface RealmContext {
  readonly services: Services;
  readonly realm: RealmHandle;
  readonly state: RealmState;
  write<T>(work: (tx: CommonQueryMethods, emit: Emit) => Promise<T>, beforeRelease?: (result: T) => void): Promise<T>;
}

/** The outside view of one organization: its actor, its cached state and its event stream. */
export class RealmHandle {
  state: RealmState;
  readonly ref: Ref<RealmMsg>;
  /** Called after a deactivation commits (the event system closes the user's queues). */
  readonly userDeactivationHooks: Array<(userId: number) => void> = [];
  /** The organization's event queues. */
  readonly queues: RealmQueues;
  /** Presence of the organization's users (its own actor, `realm-<id>/presence`). */
  readonly presence: RealmPresence;
  /** The owners of message writes below the realm actor (channels, direct messages, users). */
  readonly conversations: Conversations;
  /** When accounts come of age for role:fullmembers. */
  readonly fullMembers: FullMemberClock;
  /** Deletes messages past their retention period. */
  readonly retention: RetentionSweeper;

  constructor(
    readonly services: Services,
    state: RealmState,
    readonly events: RealmEventStream,
  ) {
    this.state = state;
    this.ref = spawnActor<ActorState, RealmMsg>(
      services.runtime.system,
      `realm-${state.id}`,
      realmActor,
      { handle: this, stale: false },
      services.log,
    );
    this.queues = new RealmQueues(this);
    this.presence = new RealmPresence(this);
    this.conversations = new Conversations(this);
    this.fullMembers = new FullMemberClock(this);
    this.fullMembers.rearm();
    this.retention = new RetentionSweeper(this);
    this.retention.start();
  }

  get id(): number {
    return this.state.id;
  }

  /** Run a command in the realm actor. Throws the ApiError it replies with. */
  ask<K extends CommandName>(name: K, input: CommandInput<K>): Promise<CommandOutput<K>> {
    return ask<RealmMsg, CommandOutput<K>>(this.services.runtime, this.ref, (replyTo) => ({
      kind: 'command',
      name,
      input,
      replyTo: replyTo as Ref<Reply<unknown>>,
    }));
  }

  /** Reload the cached state from Postgres (after changes made outside this process). */
  reload(): Promise<null> {
    return ask<RealmMsg, null>(this.services.runtime, this.ref, (replyTo) => ({ kind: 'reload', replyTo }));
  }
}

interface ActorState {
  readonly handle: RealmHandle;
  stale: boolean;
}

async function realmActor(st: ActorState, msg: RealmMsg): Promise<ActorState> {
  const { handle } = st;
  const { services } = handle;
  switch (msg.kind) {
    case 'reload':
      try {
        handle.state = await loadRealmState(services.db, handle.id);
        st.stale = false;
        reply(msg.replyTo, ok(null));
      } catch (e) {
        reply(msg.replyTo, fail(e));
      }
      return st;
    case 'command': {
      try {
        if (st.stale) {
          handle.state = await loadRealmState(services.db, handle.id);
          st.stale = false;
        }
        const ctx: RealmContext = {
          services,
          realm: handle,
          state: handle.state,
          write: (work, beforeRelease) => writeWithEvents(services.db, handle.events, work, beforeRelease),
        };
        const command = realmCommands[msg.name] as (c: RealmContext, input: unknown) => Promise<unknown>;
        reply(msg.replyTo, ok(await command(ctx, msg.input)));
      } catch (e) {
        if (!isApiError(e)) {
          // A bug or an infrastructure failure: the cache may disagree with Postgres now.
          st.stale = true;
          if (isDatabaseUnavailable(e)) services.log.warn({ realm: handle.id, command: msg.name }, 'realm command failed: database unavailable');
          else services.log.error({ err: e, realm: handle.id, command: msg.name }, 'realm command failed');
        }
        reply(msg.replyTo, fail(e));
      }
      return st;
    }
    default:
      return assertNever(msg);
  }
}

export function assertNever(x: never): never {
  throw new Error(`Unhandled message ${JSON.stringify(x)}`);
}
