// Finding what a viewer may not see in a response body or an event: secret marker strings
// anywhere in the text, and secret ids under the keys (or in the HTML attributes) that name them.
import type { Marker, SecretId, Viewer } from './model.js';

export interface Leak {
  readonly what: string;
  readonly where: string;
}

/** Keys whose numbers are message ids (first_message_id is channel metadata, not content). */
const MESSAGE_KEY = /^(message_ids?|max_id|max_message_id|unread_message_ids|first_processed_id|last_processed_id|target_message_id)$/;
/** Keys whose numbers are channel ids (`stream`/`prev_stream` in edit-history snapshots). */
const CHANNEL_KEY = /(^|_)stream_ids?$|^(stream|prev_stream|ignored_because_not_subscribed_channels)$/;
/** Ids inside rendered HTML: channel and message links, mentions. */
const HTML_IDS: ReadonlyArray<{ kind: SecretId['kind']; re: RegExp }> = [
  { kind: 'channel', re: /data-stream-id="(\d+)"/g },
  { kind: 'channel', re: /\/(?:channel|stream)\/(\d+)-/g },
  { kind: 'message', re: /\/near\/(\d+)/g },
];

export interface Secrets {
  readonly markers: readonly Marker[];
  readonly ids: readonly SecretId[];
  /** Presence of these users (by id and email) is secret for viewers the predicate refuses. */
  readonly hiddenPresence: ReadonlyArray<{ id: number; email: string; entitled: (v: Viewer) => boolean }>;
}

/**
 * Everything in `text` (a response body, headers, or one event) that `viewer` may not see.
 * `echoed` holds what the caller sent in the request: repeating it back is no leak.
 */
export function findLeaks(secrets: Secrets, viewer: Viewer, text: string, echoed = ''): Leak[] {
  const out: Leak[] = [];
  const lower = text.toLowerCase();
  const sent = echoed.toLowerCase();
  for (const m of secrets.markers) {
    if (!m.entitled(viewer) && lower.includes(m.text) && !sent.includes(m.text)) out.push({ what: `${m.vis} ${m.what} "${m.text}"`, where: excerpt(text, lower.indexOf(m.text)) });
  }
  const forbidden = new Map<string, SecretId>();
  for (const s of secrets.ids) if (!s.entitled(viewer)) forbidden.set(`${s.kind}:${s.id}`, s);
  const hidden = secrets.hiddenPresence.filter((h) => !h.entitled(viewer));
  if (forbidden.size === 0 && hidden.length === 0) return out;
  const hit = (kind: SecretId['kind'], id: unknown, where: string) => {
    const s = typeof id === 'number' ? forbidden.get(`${kind}:${id}`) : undefined;
    if (s) out.push({ what: `${s.what} (${kind} id ${s.id})`, where });
  };
  // Rendered Markdown repeats the ids a caller wrote (message links): those are no news.
  const sentIds = new Set(sent.match(/\d+/g) ?? []);
  for (const { kind, re } of HTML_IDS) {
    for (const m of text.matchAll(re)) if (!sentIds.has(m[1]!)) hit(kind, Number(m[1]), excerpt(text, m.index ?? 0));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return out;
  }
  walk(json, '', (key, value, parent, path) => {
    const ids = Array.isArray(value) ? value : [value];
    if (MESSAGE_KEY.test(key)) for (const id of ids) hit('message', id, path);
    if (key === 'messages' && Array.isArray(value)) for (const id of value) if (typeof id === 'number') hit('message', id, path);
    if (key === 'id' && parent && 'sender_id' in parent) hit('message', value, path);
    if (CHANNEL_KEY.test(key)) for (const id of ids) hit('channel', id, path);
    if (key === 'presences' && value && typeof value === 'object') {
      for (const h of hidden) if (String(h.id) in value || h.email in value) out.push({ what: `presence of hidden user ${h.id}`, where: path });
    }
    if (key === 'type' && value === 'presence' && parent) {
      for (const h of hidden) if (parent.user_id === h.id || parent.email === h.email) out.push({ what: `presence event of hidden user ${h.id}`, where: path });
    }
  });
  return out;
}

type Visit = (key: string, value: unknown, parent: Record<string, unknown> | null, path: string) => void;

function walk(v: unknown, path: string, visit: Visit, key = '', parent: Record<string, unknown> | null = null): void {
  visit(key, v, parent, path);
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, visit));
  else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) walk(x, `${path}.${k}`, visit, k, o);
  }
}

function excerpt(text: string, at: number): string {
  return text.slice(Math.max(0, at - 120), at + 120);
}
