// Rendering of organization descriptions for server_settings until the Markdown renderer lands.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export function renderPlainDescription(text: string): string {
  const paragraphs = text.split(/\n{2,}/).filter((p) => p.trim().length > 0);
  return paragraphs.map((p) => `<p>${escapeHtml(p.trim()).replace(/\n/g, '<br>\n')}</p>`).join('\n');
}
