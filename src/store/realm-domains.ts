// The organization's allowed email domains. Call writes inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const domainRow = z.object({ id: z.number(), domain: z.string(), allow_subdomains: z.boolean() });
export type DomainRow = z.infer<typeof domainRow>;

export function listDomains(db: CommonQueryMethods, realmId: number): Promise<readonly DomainRow[]> {
  return db.any(sql.type(domainRow)`
    SELECT id, domain, allow_subdomains FROM realm_domains WHERE realm_id = ${realmId} ORDER BY domain`);
}

export function insertDomain(db: CommonQueryMethods, realmId: number, domain: string, allowSubdomains: boolean): Promise<DomainRow> {
  return db.one(sql.type(domainRow)`
    INSERT INTO realm_domains (realm_id, domain, allow_subdomains) VALUES (${realmId}, ${domain}, ${allowSubdomains})
    RETURNING id, domain, allow_subdomains`);
}

/** Returns whether the domain existed. */
export async function setAllowSubdomains(db: CommonQueryMethods, realmId: number, domain: string, allow: boolean): Promise<boolean> {
  const r = await db.query(sql.unsafe`
    UPDATE realm_domains SET allow_subdomains = ${allow} WHERE realm_id = ${realmId} AND domain = ${domain}`);
  return r.rowCount > 0;
}

/** Returns whether the domain existed. */
export async function deleteDomain(db: CommonQueryMethods, realmId: number, domain: string): Promise<boolean> {
  const r = await db.query(sql.unsafe`DELETE FROM realm_domains WHERE realm_id = ${realmId} AND domain = ${domain}`);
  return r.rowCount > 0;
}
