-- Token lifetimes: each realm has a default access-token lifetime, and a resource overrides it
-- only when it sets its own. Resources still on the old fixed default (300 s) follow their
-- realm's default from now on; the realm default starts at 300 s, so no lifetime changes.
ALTER TABLE realms ADD COLUMN token_ttl_secs BIGINT NOT NULL DEFAULT 300;
ALTER TABLE resources ADD COLUMN token_ttl_override_secs BIGINT;
UPDATE resources SET token_ttl_override_secs = token_ttl_secs WHERE token_ttl_secs <> 300;
ALTER TABLE resources DROP COLUMN token_ttl_secs;
ALTER TABLE resources RENAME COLUMN token_ttl_override_secs TO token_ttl_secs;
