-- Code playgrounds (POST /realm/playgrounds, DELETE /realm/playgrounds/{id}): where a code
-- block of a language can be opened, per organization.
CREATE TABLE realm_playgrounds (
  id                 serial PRIMARY KEY,
  realm_id           integer NOT NULL REFERENCES realms(id),
  name               text NOT NULL,
  pygments_language  text NOT NULL,
  url_template       text NOT NULL,
  UNIQUE (realm_id, pygments_language, name)
);
