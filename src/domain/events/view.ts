// What a presenter knows about the client that receives an event and about the organization.
import type { Capabilities } from '../client-capabilities.js';

/** The receiving queue: its owner and what the client declared at POST /register. */
export interface ClientView {
  readonly queueId: string;
  readonly userId: number;
  readonly capabilities: Capabilities;
  readonly applyMarkdown: boolean;
  readonly clientExtavatar: boolean;
}

export interface LookupUser {
  readonly id: number;
  readonly role: number;
  readonly avatar_source: string;
  readonly settings: { readonly email_address_visibility: number } & Readonly<Record<string, unknown>>;
}

/** The organization as presenters need it (RealmState satisfies this). */
export interface RealmLookup {
  readonly realm: { readonly host: string; readonly settings: { readonly empty_topic_display_name: string } };
  user(id: number): LookupUser | undefined;
  /** May the viewer see this user at all (can_access_all_users_group)? */
  canAccessUser(viewerId: number, targetId: number): boolean;
}

export interface PresentContext {
  readonly view: ClientView;
  readonly realm: RealmLookup;
}

/** A client-facing event: the JSON object sent in `events`, id included. */
export type ClientEvent = Record<string, unknown> & { readonly id: number; readonly type: string };
