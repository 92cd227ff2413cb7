// Links into the web app's narrows (`/#narrow/channel/7-general/topic/lunch.20plans`).
//
// A hash component is percent-encoded with every character outside [A-Za-z0-9_.~-] escaped
// (UTF-8), then '.' is escaped as well and every '%' is written as '.', so the fragment stays
// free of '%', which some browsers decode in location.hash. The scheme is reversible:
// decodeHashComponent turns each '.' back into '%' and percent-decodes. A channel is written
// `<id>-<name>` with spaces in the name turned into dashes first: the id alone identifies the
// channel, the name is there for people reading the URL.

export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** Inverse of encodeHashComponent; null when the text is not a valid encoding. */
export function decodeHashComponent(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded.replace(/\./g, '%'));
  } catch {
    return null;
  }
}

export function channelNarrowUrl(channelId: number, channelName: string): string {
  return `/#narrow/channel/${channelId}-${encodeHashComponent(channelName.replace(/ /g, '-'))}`;
}

export function topicNarrowUrl(channelId: number, channelName: string, topic: string): string {
  return `${channelNarrowUrl(channelId, channelName)}/topic/${encodeHashComponent(topic)}`;
}

export function messageNarrowUrl(channelId: number, channelName: string, topic: string, messageId: number): string {
  return `${topicNarrowUrl(channelId, channelName, topic)}/near/${messageId}`;
}
