// How the Markdown renderer sees an organization: its active users, groups, the channels the
// author may link to, custom emoji and linkifiers — all cached realm state, answered
// synchronously as the renderer requires (no database round trip per render).
import type { MarkdownContext } from '../../domain/markdown/index.js';
import { canSeeChannel } from './channel-view.js';
import type { RealmState, UserRecord } from './state.js';

export interface RenderData {
  realmEmoji(name: string): { id: string; name: string; url: string } | null;
  readonly linkifiers: ReadonlyArray<{ id: number; pattern: string; urlTemplate: string }>;
}

/** The organization's custom emoji and linkifiers as they are now. */
export function renderData(state: RealmState): RenderData {
  return { realmEmoji: (name) => state.markdownEmoji(name), linkifiers: state.markdownLinkifiers() };
}

/**
 * The context for content written by `author` (null: organization texts such as channel
 * descriptions, which may link only to public channels).
 */
export function realmMarkdownContext(state: RealmState, data: RenderData, author: UserRecord | null): MarkdownContext {
  return {
    userByName: (name) => {
      const u = state.activeUserByName(name);
      return u ? { id: u.id, fullName: u.full_name } : null;
    },
    userById: (id) => {
      const u = state.user(id);
      return u && u.is_active ? { id: u.id, fullName: u.full_name } : null;
    },
    groupByName: (name) => {
      const lower = name.toLowerCase();
      for (const g of state.groups.values()) {
        if (g.name !== null && !g.deactivated && g.name.toLowerCase() === lower) return { id: g.id, name: g.name };
      }
      return null;
    },
    channelByName: (name) => {
      const c = state.channels.byName(name);
      if (!c) return null;
      const visible = author ? canSeeChannel(state, author, c) : !c.invite_only;
      return visible ? { id: c.id, name: c.name } : null;
    },
    realmEmoji: (name) => data.realmEmoji(name),
    linkifiers: data.linkifiers,
  };
}
