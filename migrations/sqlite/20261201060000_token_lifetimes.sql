-- Token lifetimes: each realm has a default access-token lifetime, and a resource overrides it
-- only when it sets its own. Before, every resource stored a lifetime and an empty form field
-- stored 300 s, so an explicit 300 s cannot be told from the default: resources on 300 s follow
-- their realm's default from now on (it starts at 300 s, so no lifetime changes now), and any
-- other value stays the resource's own. Both are bounded like the console's input (30–3600 s):
-- key retirement keeps a key published for the longest lifetime only.
ALTER TABLE realms ADD COLUMN token_ttl_secs BIGINT NOT NULL DEFAULT 300
    CHECK (token_ttl_secs BETWEEN 30 AND 3600);
ALTER TABLE resources ADD COLUMN token_ttl_override_secs BIGINT
    CHECK (token_ttl_override_secs BETWEEN 30 AND 3600);
UPDATE resources SET token_ttl_override_secs = token_ttl_secs WHERE token_ttl_secs <> 300;
ALTER TABLE resources DROP COLUMN token_ttl_secs;
ALTER TABLE resources RENAME COLUMN token_ttl_override_secs TO token_ttl_secs;
