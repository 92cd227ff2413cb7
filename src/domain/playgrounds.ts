// Code playgrounds: a name, the Pygments language of the code blocks it takes, and an RFC 6570
// URL template whose one variable, `code`, receives the block's code.
import { urlTemplateVariables, validateUrlTemplate } from './url-template.js';

export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
const LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;

/** What is wrong with a playground, or null. */
export function checkPlayground(name: string, language: string, urlTemplate: string): string | null {
  if (name === '') return 'Name cannot be blank.';
  if (language === '') return 'Pygments language cannot be blank.';
  if ([...language].length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    return `Pygments language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`;
  }
  if (!LANGUAGE.test(language)) return 'Invalid characters in pygments language';
  const templateError = validateUrlTemplate(urlTemplate);
  if (templateError) return templateError;
  const variables = urlTemplateVariables(urlTemplate);
  if (!variables.includes('code')) return 'Missing the required variable "code" in the URL template';
  if (variables.length > 1) return '"code" should be the only variable present in the URL template';
  return null;
}
