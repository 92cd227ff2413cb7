// Custom profile fields: their types, the configuration some types carry (field_data), and the
// rules for the values users give them. Pure: callers pass in what they know about users.
import { z } from 'zod';
import { errors } from './errors.js';
import { isAllowedLinkUrl } from './markdown/link-policy.js';

export const FieldType = {
  shortText: 1,
  longText: 2,
  select: 3,
  date: 4,
  url: 5,
  user: 6,
  externalAccount: 7,
  pronouns: 8,
} as const;

/** register's custom_profile_field_types. */
export const FIELD_TYPES: Readonly<Record<string, { id: number; name: string }>> = {
  SHORT_TEXT: { id: FieldType.shortText, name: 'Text (short)' },
  LONG_TEXT: { id: FieldType.longText, name: 'Text (long)' },
  SELECT: { id: FieldType.select, name: 'List of options' },
  DATE: { id: FieldType.date, name: 'Date picker' },
  URL: { id: FieldType.url, name: 'Link' },
  USER: { id: FieldType.user, name: 'Person picker' },
  EXTERNAL_ACCOUNT: { id: FieldType.externalAccount, name: 'External account' },
  PRONOUNS: { id: FieldType.pronouns, name: 'Pronouns' },
};

export const isFieldType = (t: number): boolean => Object.values(FieldType).includes(t as never);

export const MAX_FIELD_NAME_LENGTH = 40;
export const MAX_FIELD_HINT_LENGTH = 80;
export const MAX_SUMMARY_FIELDS = 2;
const MAX_SHORT_VALUE = 50;
const MAX_LONG_VALUE = 500;

/** Types whose values are Markdown and carry a rendered_value. */
export const isRenderedType = (t: number): boolean => t === FieldType.shortText || t === FieldType.longText;

/** Types that may be shown in the profile summary. */
export const canShowInSummary = (t: number): boolean => t !== FieldType.longText && t !== FieldType.user;

/** Types that may be used to match users in typeahead. */
export const canUseForMatching = (t: number): boolean => t === FieldType.shortText || t === FieldType.externalAccount;

/** External-account subtypes with their name, hint and profile URL. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Readonly<Record<string, { text: string; name: string; hint: string; url_pattern: string }>> = {
  github: { text: 'GitHub', name: 'GitHub', hint: 'Enter your GitHub username', url_pattern: 'https://github.com/%(username)s' },
  twitter: { text: 'Twitter', name: 'Twitter', hint: 'Enter your Twitter username', url_pattern: 'https://twitter.com/%(username)s' },
};

const choice = z.object({ text: z.string(), order: z.string() }).strict();
const selectData = z.record(z.string(), choice);
const externalData = z
  .object({ subtype: z.string(), url_pattern: z.string().optional() })
  .strict();

export type FieldData = Readonly<Record<string, unknown>> | null;

/**
 * Check the configuration of a field of this type; returns it as stored (JSON text, '' for
 * types without configuration). Throws a 400 naming the problem.
 */
export function checkFieldData(type: number, data: unknown): string {
  if (type === FieldType.select) {
    const r = selectData.safeParse(data ?? {});
    if (!r.success) throw errors.badRequest('Invalid field data for a list of options.');
    const choices = Object.values(r.data);
    if (choices.length === 0) throw errors.badRequest('Field must have at least one choice.');
    const texts = new Set<string>();
    for (const c of choices) {
      if (c.text.trim() === '') throw errors.badRequest('Labels of choices cannot be blank.');
      if (texts.has(c.text)) throw errors.badRequest(`'${c.text}' is duplicated.`);
      texts.add(c.text);
    }
    return JSON.stringify(r.data);
  }
  if (type === FieldType.externalAccount) {
    const r = externalData.safeParse(data ?? {});
    if (!r.success) throw errors.badRequest('Invalid field data for an external account.');
    const { subtype, url_pattern } = r.data;
    if (subtype === 'custom') {
      if (!url_pattern) throw errors.badRequest('Custom external account must define URL pattern');
      if ((url_pattern.match(/%\(username\)s/g) ?? []).length !== 1 || !isAllowedLinkUrl(url_pattern.replace('%(username)s', 'x'))) {
        throw errors.badRequest('Malformed URL pattern.');
      }
    } else if (!(subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
      throw errors.badRequest('Invalid external account type');
    } else if (url_pattern !== undefined) {
      throw errors.badRequest('URL pattern is only for custom external accounts.');
    }
    return JSON.stringify(r.data);
  }
  return '';
}

/** The options of a list-of-options field, by key. */
export function selectChoices(fieldData: string): Record<string, { text: string; order: string }> {
  return fieldData === '' ? {} : (JSON.parse(fieldData) as Record<string, { text: string; order: string }>);
}

export interface FieldForValue {
  readonly id: number;
  readonly name: string;
  readonly field_type: number;
  readonly field_data: string;
}

/**
 * Check a user's value for a field and return it as stored (user lists as JSON text). Throws a
 * 400 whose message names the field.
 */
export function checkFieldValue(field: FieldForValue, value: unknown, isActiveUser: (id: number) => boolean): string {
  const name = field.name;
  if (field.field_type === FieldType.user) {
    if (!Array.isArray(value) || !value.every((v) => Number.isSafeInteger(v))) throw errors.badRequest(`${name} is not a list`);
    const ids = [...new Set(value as number[])];
    for (const id of ids) if (!isActiveUser(id)) throw errors.invalidUserId(id);
    return JSON.stringify(ids);
  }
  if (typeof value !== 'string') throw errors.badRequest(`${name} is not a string`);
  switch (field.field_type) {
    case FieldType.longText:
      if ([...value].length > MAX_LONG_VALUE) throw errors.tooLong(name, MAX_LONG_VALUE);
      return value;
    case FieldType.date:
      if (!/^\d{4}-\d\d-\d\d$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw errors.badRequest(`${name} is not a date`);
      return value;
    case FieldType.url:
      if (!/^https?:\/\/[^\s]+$/i.test(value) || !URL.canParse(value)) throw errors.badRequest(`${name} is not a URL`);
      return value;
    case FieldType.select:
      if (!(value in selectChoices(field.field_data))) throw errors.badRequest(`'${value}' is not a valid choice for '${name}'.`);
      return value;
    default:
      if ([...value].length > MAX_SHORT_VALUE) throw errors.tooLong(name, MAX_SHORT_VALUE);
      return value;
  }
}

export interface FieldRecord extends FieldForValue {
  readonly hint: string;
  readonly sort_order: number;
  readonly display_in_profile_summary: boolean;
  readonly required: boolean;
  readonly editable_by_user: boolean;
  readonly use_for_user_matching: boolean;
}

/** The API's field object; the two rarely-set flags appear only when true. */
export function formatField(f: FieldRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    type: f.field_type,
    hint: f.hint,
    field_data: f.field_data,
    order: f.sort_order,
    required: f.required,
    editable_by_user: f.editable_by_user,
  };
  if (f.display_in_profile_summary) out.display_in_profile_summary = true;
  if (f.use_for_user_matching) out.use_for_user_matching = true;
  return out;
}
