// Who owns which message writes, below the realm actor:
//
//   realm-<r>/cb-<b>/channel-<c>   one actor per channel (spawned on first use, under one of
//                                  CHANNEL_BUCKETS hashed parents): sends, edits, moves,
//                                  deletes and reactions of the channel's messages, in order;
//   realm-<r>/dm-<b>               DM_BUCKETS actors for direct messages, a conversation always
//                                  in the same one (hashed by its participants);
//   realm-<r>/ub-<b>               USER_BUCKETS actors for personal data (flags, topic
//                                  settings), a user always in the same one.
//
// Moving messages to another channel: the source channel's actor owns the move. Inside its
// transaction it locks the moved rows (SELECT … FOR UPDATE), changes their channel and emits the
// events. Every command about an existing message re-reads that message FOR UPDATE inside its
// own transaction and checks it still belongs to the actor's channel; if it was moved meanwhile
// the command replies Reroute(new channel) and `ask` below sends it to the new owner. The row
// lock orders a move against anything the destination's actor does with the same rows, and
// new messages in the destination never conflict with a move (ids come from one sequence, and
// the move keeps them).
import type { CommonQueryMethods } from 'slonik';
import type { CommitOrder } from '../commit-order.js';
import { writeWithEvents, type Emit } from '../realm-events.js';
import { ask, bucketOf, spawnActor, type Ref, type Reply } from '../runtime.js';
import type { RealmHandle } from '../realm/actor.js';
import type { Services } from '../../services.js';
import { deleteOldIdempotencyKeys } from '../../store/messages.js';
import { conversationCommands } from './conversation-commands.js';
import { Reroute, spawnSerialActor, type CommandInput, type CommandResult, type SerialCommand } from './serial-actor.js';
import { userDataCommands } from './user-data-commands.js';
import { GroupCommit } from './group-commit.js';
import { MAX_ROWS_PER_TRANSACTION, sendMessages, type SendInput, type SendResult } from './send.js';

const CHANNEL_BUCKETS = 64;
const DM_BUCKETS = 16;
const USER_BUCKETS = 16;
const MAX_REROUTES = 3;
/**
 * Shared transactions of sends a realm runs at once (group-commit.ts; never more than the pool's
 * connections), and the rows from which a batch runs alone instead (a send to a channel of about
 * a thousand subscribers). Two lanes: with one, a batch waits for every commit before it; with
 * four, ten clients in ten direct conversations merged too little to gain (0.65 × R3 against
 * 0.83–0.89 with two). On the embedded database's one connection, a second lane only queued
 * for it with a batch that could have merged (708 sends/s against 988 with one lane).
 */
const SEND_LANES = 2;
const SOLO_SEND_ROWS = 1_000;
/** Idempotency keys are kept this long; the sweep runs this often. */
const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;
const SWEEP_INTERVAL_MS = 3_600_000;

export type ConversationKey = { readonly kind: 'channel'; readonly channelId: number } | { readonly kind: 'dm'; readonly dmKey: string };

/** The owner of a stored message. */
export function conversationKeyOf(m: { readonly channel_id: number | null; readonly dm_key: string | null }): ConversationKey {
  return m.channel_id !== null ? { kind: 'channel', channelId: m.channel_id } : { kind: 'dm', dmKey: m.dm_key! };
}

export interface WriteContext {
  readonly services: Services;
  readonly realm: RealmHandle;
  write<T>(work: (tx: CommonQueryMethods, emit: Emit) => Promise<T>, beforeRelease?: (result: T) => void, order?: CommitOrder): Promise<T>;
}

/** What a conversation command sees: the owner it runs in. */
export interface ConversationContext extends WriteContext {
  readonly owner: { readonly kind: 'channel'; readonly channelId: number } | { readonly kind: 'dm'; readonly bucket: number };
}

type ConvCommands = typeof conversationCommands;
type UserCommands = typeof userDataCommands;

export class Conversations {
  private readonly channelActors = new Map<number, Ref<SerialCommand<ConversationContext>>>();
  private readonly channelBuckets = new Map<number, Ref<never>>();
  private readonly dmActors = new Map<number, Ref<SerialCommand<ConversationContext>>>();
  private readonly userActors = new Map<number, Ref<SerialCommand<WriteContext>>>();
  /** The sends of every owner in the realm, merged into shared transactions. */
  readonly sends: GroupCommit<SendInput, SendResult>;

  constructor(private readonly realm: RealmHandle) {
    const ctx = this.writeContext();
    this.sends = new GroupCommit((inputs, order) => sendMessages(ctx, inputs, order), {
      lanes: Math.min(SEND_LANES, realm.services.dbConnections),
      maxWeight: MAX_ROWS_PER_TRANSACTION,
      soloWeight: SOLO_SEND_ROWS,
    });
    const sweep = setInterval(() => {
      const { db, clock, log } = realm.services;
      deleteOldIdempotencyKeys(db, realm.id, clock.now() - IDEMPOTENCY_KEY_TTL_MS).catch((err: unknown) =>
        log.warn({ err }, 'idempotency key sweep failed'),
      );
    }, SWEEP_INTERVAL_MS);
    sweep.unref();
  }

  private writeContext(): WriteContext {
    const { realm } = this;
    return {
      services: realm.services,
      realm,
      write: (work, beforeRelease, order) => writeWithEvents(realm.services.db, realm.events, work, beforeRelease, order),
    };
  }

  private actorFor(key: ConversationKey): Ref<SerialCommand<ConversationContext>> {
    const { services } = this.realm;
    if (key.kind === 'dm') {
      const bucket = bucketOf(key.dmKey, DM_BUCKETS);
      let ref = this.dmActors.get(bucket);
      if (!ref) {
        const ctx: ConversationContext = { ...this.writeContext(), owner: { kind: 'dm', bucket } };
        ref = spawnSerialActor(this.realm.ref, `dm-${bucket}`, ctx, conversationCommands, services.log);
        this.dmActors.set(bucket, ref);
      }
      return ref;
    }
    let ref = this.channelActors.get(key.channelId);
    if (!ref) {
      const b = bucketOf(key.channelId, CHANNEL_BUCKETS);
      let parent = this.channelBuckets.get(b);
      if (!parent) {
        // Buckets only hold children; they never receive messages.
        parent = spawnActor<null, never>(this.realm.ref, `cb-${b}`, () => null, null, services.log) as Ref<never>;
        this.channelBuckets.set(b, parent);
      }
      const ctx: ConversationContext = { ...this.writeContext(), owner: { kind: 'channel', channelId: key.channelId } };
      ref = spawnSerialActor(parent, `channel-${key.channelId}`, ctx, conversationCommands, services.log);
      this.channelActors.set(key.channelId, ref);
    }
    return ref;
  }

  /** Run a command in the conversation's owner; follows Reroutes of moved messages. */
  async ask<K extends keyof ConvCommands>(
    key: ConversationKey,
    name: K,
    input: CommandInput<ConvCommands[K]>,
  ): Promise<CommandResult<ConvCommands[K]>> {
    let target = key;
    for (let i = 0; ; i++) {
      try {
        return await ask<SerialCommand<ConversationContext>, CommandResult<ConvCommands[K]>>(
          this.realm.services.runtime,
          this.actorFor(target),
          (replyTo) => ({ kind: 'command', name, input, replyTo: replyTo as Ref<Reply<unknown>> }),
        );
      } catch (e) {
        if (!(e instanceof Reroute) || i >= MAX_REROUTES) throw e;
        target = { kind: 'channel', channelId: e.to.channelId };
      }
    }
  }

  /** Run a command in the owner of a user's personal data. */
  askUser<K extends keyof UserCommands>(
    userId: number,
    name: K,
    input: CommandInput<UserCommands[K]>,
  ): Promise<CommandResult<UserCommands[K]>> {
    const bucket = bucketOf(userId, USER_BUCKETS);
    let ref = this.userActors.get(bucket);
    if (!ref) {
      ref = spawnSerialActor(this.realm.ref, `ub-${bucket}`, this.writeContext(), userDataCommands, this.realm.services.log);
      this.userActors.set(bucket, ref);
    }
    return ask<SerialCommand<WriteContext>, CommandResult<UserCommands[K]>>(this.realm.services.runtime, ref, (replyTo) => ({
      kind: 'command',
      name,
      input,
      replyTo: replyTo as Ref<Reply<unknown>>,
    }));
  }
}
