// How the Markdown renderer sees an organization: its active users, groups, the channels the
// author may link to, custom emoji and linkifiers. Emoji and linkifiers are read from the store
// once per render batch (another area owns their endpoints and caches); the rest is cached
// realm state, answered synchronously as the renderer requires.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { MarkdownContext } from '../../domain/markdown/index.js';
import { canSeeChannel } from './channel-view.js';
import type { RealmState, UserRecord } from './state.js';

export interface RenderData {
  readonly emoji: ReadonlyMap<string, { id: string; name: string; url: string }>;
  readonly linkifiers: ReadonlyArray<{ id: number; pattern: string; urlTemplate: string }>;
}

const emojiRow = z.object({ id: z.number(), name: z.string(), file_name: z.string() });
const linkifierRow = z.object({ id: z.number(), pattern: z.string(), url_template: z.string() });

export async function loadRenderData(db: CommonQueryMethods, realmId: number): Promise<RenderData> {
  const [emoji, linkifiers] = await Promise.all([
    db.any(sql.type(emojiRow)`SELECT id, name, file_name FROM realm_emoji WHERE realm_id = ${realmId} AND NOT deactivated`),
    db.any(sql.type(linkifierRow)`
      SELECT id, pattern, url_template FROM linkifiers WHERE realm_id = ${realmId} ORDER BY sort_order, id`),
  ]);
  return {
    emoji: new Map(
      emoji.map((e) => [
        e.name,
        { id: String(e.id), name: e.name, url: `/user_avatars/${realmId}/emoji/images/${encodeURIComponent(e.file_name)}` },
      ]),
    ),
    linkifiers: linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, urlTemplate: l.url_template })),
  };
}

/**
 * The context for content written by `author` (null: organization texts such as channel
 * descriptions, which may link only to public channels).
 */
export function realmMarkdownContext(state: RealmState, data: RenderData, author: UserRecord | null): MarkdownContext {
  let byName: Map<string, { id: number; fullName: string } | null> | null = null;
  const nameIndex = () => {
    if (byName) return byName;
    byName = new Map();
    for (const u of state.users.values()) {
      if (!u.is_active) continue;
      const key = u.full_name.toLowerCase();
      // Two active users with one name: a mention by name alone names neither.
      byName.set(key, byName.has(key) ? null : { id: u.id, fullName: u.full_name });
    }
    return byName;
  };
  return {
    userByName: (name) => nameIndex().get(name.toLowerCase()) ?? null,
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
    realmEmoji: (name) => data.emoji.get(name) ?? null,
    linkifiers: data.linkifiers,
  };
}
