// A user's own data: limits, the built-in navigation views, and the API form of a status.

export const MAX_ALERT_WORD_LENGTH = 100;
export const MAX_STATUS_TEXT_LENGTH = 60;
export const MAX_SNIPPET_TITLE_LENGTH = 60;

/** The views every client has; configuring one stores no name. */
export const BUILT_IN_VIEWS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'narrow/is/mentioned',
  'narrow/has/reaction/sender/me',
  'narrow/is/starred',
  'drafts',
  'scheduled',
  'reminders',
]);

export interface StatusFields {
  readonly status_text: string;
  readonly emoji_name: string;
  readonly emoji_code: string;
  readonly reaction_type: string;
}

/** A status with only its set parts; "away" is the inverse of presence_enabled. */
export function formatStatus(s: StatusFields | null, presenceEnabled: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!presenceEnabled) out.away = true;
  if (s?.status_text) out.status_text = s.status_text;
  if (s?.emoji_name) {
    out.emoji_name = s.emoji_name;
    out.emoji_code = s.emoji_code;
    out.reaction_type = s.reaction_type;
  }
  return out;
}
