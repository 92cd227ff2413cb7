// POST /register's state: each resource contributes its members through one StateProvider,
// fetched only when one of its event types is requested (fetch_event_types, else event_types,
// else all). Providers read cached realm state or the store; they never change anything.
import type { App } from '../../app.js';
import type { RealmHandle } from '../../actors/realm/actor.js';
import type { UserRecord } from '../../actors/realm/state.js';
import type { Capabilities } from '../../domain/client-capabilities.js';
import { MAX_MESSAGE_LENGTH } from '../../domain/message-rules.js';
import { MAX_TOPIC_LENGTH } from '../../domain/topic-names.js';
import { canCreateVideoCalls } from '../../domain/videocalls.js';

export interface RegisterOptions {
  readonly applyMarkdown: boolean;
  readonly clientExtavatar: boolean;
  readonly includeSubscribers: 'true' | 'false' | 'partial';
  readonly slimPresence: boolean;
  readonly presenceHistoryLimitDays: number;
  readonly allPublicStreams: boolean;
  readonly capabilities: Capabilities;
}

export interface StateContext {
  readonly app: App;
  readonly realm: RealmHandle;
  /** null for a spectator (unauthenticated access to a web-public organization). */
  readonly user: UserRecord | null;
  readonly options: RegisterOptions;
  /** Is this event type requested? */
  readonly wants: (eventType: string) => boolean;
}

export interface StateProvider {
  /** Event types whose request fetches this provider's members. */
  readonly types: readonly string[];
  /** Whether spectators receive it. */
  readonly spectators: boolean;
  fetch(ctx: StateContext): Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** The members every register response has, whatever was requested. */
export function baseState(ctx: StateContext, idleQueueTimeoutSecs: number): Record<string, unknown> {
  const settings = ctx.realm.state.realm.settings;
  return {
    idle_queue_timeout_secs: idleQueueTimeoutSecs,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_message_length: MAX_MESSAGE_LENGTH,
    max_channel_folder_name_length: MAX_CHANNEL_FOLDER_NAME_LENGTH,
    max_channel_folder_description_length: MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
    realm_empty_topic_display_name: settings.empty_topic_display_name,
    realm_topics_policy: settings.topics_policy,
    has_videocall_token: ctx.user !== null && canCreateVideoCalls(ctx.app.config.videocallUrl, ctx.user.role),
  };
}

// The message limits are the domain's: what the server enforces is what clients are told.
export { MAX_TOPIC_LENGTH } from '../../domain/topic-names.js';
export { MAX_MESSAGE_LENGTH } from '../../domain/message-rules.js';
export const MAX_CHANNEL_FOLDER_NAME_LENGTH = 60;
export const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024;
export {
  MAX_CHANNEL_NAME_LENGTH as MAX_STREAM_NAME_LENGTH,
  MAX_CHANNEL_DESCRIPTION_LENGTH as MAX_STREAM_DESCRIPTION_LENGTH,
} from '../../domain/channels.js';
