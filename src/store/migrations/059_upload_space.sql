-- Bytes uploaded per organization (upload_space_used), kept with every upload added or removed:
-- every attachment event carries it, and a sum over the organization's uploads in each of their
-- transactions grew with the organization.
CREATE TABLE realm_upload_space (
  realm_id integer PRIMARY KEY REFERENCES realms(id),
  bytes    bigint NOT NULL
);
INSERT INTO realm_upload_space (realm_id, bytes) SELECT realm_id, sum(size) FROM attachments GROUP BY realm_id;
