// Allowed email domains of an organization: the shape of a domain, and whether an address
// belongs to one (emails_restricted_to_domains).
import { errors } from './errors.js';

function domainProblem(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (label.length === 0) return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/** The domain as stored (trimmed, lower case); throws "Invalid domain: …". */
export function checkDomain(raw: string): string {
  const domain = raw.trim().toLowerCase();
  const problem = domainProblem(domain);
  if (problem) throw errors.badRequest(`Invalid domain: ${problem}`);
  return domain;
}

/** Does the address's domain match one of the allowed ones (or a subdomain, where allowed)? */
export function isAllowedByDomains(email: string, domains: ReadonlyArray<{ domain: string; allow_subdomains: boolean }>): boolean {
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return domains.some((d) => host === d.domain || (d.allow_subdomains && host.endsWith(`.${d.domain}`)));
}
