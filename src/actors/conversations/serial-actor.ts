// An actor that runs typed commands one at a time, the way the realm actor does, for the
// messaging owners below the realm: one actor per channel, hashed actors for direct-message
// conversations and for users' personal data (flags, topic settings). Expected failures are
// replies; a command may also reply with a Reroute: "this message now belongs to another
// conversation, ask its owner" (see conversations.ts for the move protocol).
import type { Logger } from 'pino';
import { isApiError } from '../../domain/errors.js';
import { isDatabaseUnavailable } from '../../store/database.js';
import { fail, ok, reply, spawnActor, type Ref, type Reply } from '../runtime.js';

export interface SerialCommand<C> {
  readonly kind: 'command';
  readonly name: string;
  readonly input: unknown;
  readonly replyTo: Ref<Reply<unknown>>;
  /** Unused at runtime; ties a message to its context type. */
  readonly _ctx?: C;
}

/** Thrown by a command whose message moved to another conversation meanwhile. */
export class Reroute extends Error {
  constructor(readonly to: { readonly channelId: number }) {
    super('rerouted');
  }
}

export type CommandTable<C> = Readonly<Record<string, (ctx: C, input: never) => Promise<unknown>>>;

export function spawnSerialActor<C>(
  parent: Ref<unknown>,
  name: string,
  ctx: C,
  commands: CommandTable<C>,
  log: Logger,
): Ref<SerialCommand<C>> {
  return spawnActor<null, SerialCommand<C>>(
    parent,
    name,
    async (_st, msg) => {
      const command = commands[msg.name] as ((c: C, input: unknown) => Promise<unknown>) | undefined;
      try {
        if (!command) throw new Error(`Unknown command ${msg.name} for ${name}`);
        reply(msg.replyTo, ok(await command(ctx, msg.input)));
      } catch (e) {
        // An outage is not a bug: the request that asked reports it (a 503).
        if (!isApiError(e) && !(e instanceof Reroute) && !isDatabaseUnavailable(e)) log.error({ err: e, actor: name, command: msg.name }, 'command failed');
        reply(msg.replyTo, fail(e));
      }
      return null;
    },
    null,
    log,
  );
}
