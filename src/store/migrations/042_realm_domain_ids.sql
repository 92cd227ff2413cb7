-- Allowed domains get an id, which POST /realm/domains reports with the new domain.
ALTER TABLE realm_domains ADD COLUMN id serial;
