-- Realm people from upstream identity providers (brokering): a realm's sign-in page offers its
-- own OpenID Connect providers (rows of sso_providers whose realm is that realm), which create
-- people just in time and map their groups to roles, units and rings.

-- Whether the provider signs in the realm's people (else console accounts: the default realm
-- holds both).
ALTER TABLE sso_providers ADD COLUMN for_people BOOLEAN NOT NULL DEFAULT FALSE;

-- JSON: [{"group": "...", "kind": "role" | "unit" | "ring", "target": "..."}]; console
-- providers leave it empty.
ALTER TABLE sso_providers ADD COLUMN group_mapping TEXT NOT NULL DEFAULT '[]';

-- The provider a person comes from (created by its first sign-in, or linked to it by proving
-- the local account): while it is disabled the person cannot sign in or refresh.
ALTER TABLE people ADD COLUMN provider_id TEXT REFERENCES sso_providers (id);
CREATE INDEX people_provider ON people (provider_id);

-- Which person an identity at a realm's provider (its subject) is.
CREATE TABLE person_upstream_identities (
    provider_id TEXT NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    person_id TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (provider_id, subject),
    UNIQUE (provider_id, person_id)
);
CREATE INDEX person_upstream_identities_person ON person_upstream_identities (person_id);

-- Whether the realm's sign-in page takes the local password (off: its providers only).
ALTER TABLE realms ADD COLUMN password_sign_in BOOLEAN NOT NULL DEFAULT TRUE;
