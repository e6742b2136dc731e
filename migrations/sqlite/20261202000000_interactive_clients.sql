-- Interactive clients: each realm's people (who sign in at its authorization endpoint, apart
-- from the console's accounts), their sign-in sessions, remembered consent, authorization codes,
-- and refresh-token families. Secrets (session ids, codes, refresh tokens) are stored as
-- SHA-256 only. A family is everything one authorization produced: revoking it (code replay,
-- refresh-token reuse, a revoked consent, a disabled person) makes its refresh tokens useless
-- and its access tokens introspect inactive.
ALTER TABLE realms ADD COLUMN refresh_idle_ttl_secs BIGINT NOT NULL DEFAULT 1209600
    CHECK (refresh_idle_ttl_secs BETWEEN 300 AND 31536000);
ALTER TABLE realms ADD COLUMN refresh_max_ttl_secs BIGINT NOT NULL DEFAULT 7776000
    CHECK (refresh_max_ttl_secs BETWEEN 300 AND 31536000);

CREATE TABLE people (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    email TEXT NOT NULL,
    display_name TEXT NOT NULL,
    password_hash TEXT,
    roles TEXT NOT NULL DEFAULT '',
    disabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, email)
);

CREATE TABLE login_sessions (
    id_hash BLOB PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    subject TEXT NOT NULL,
    auth_time BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX login_sessions_subject ON login_sessions (subject);
CREATE INDEX login_sessions_expiry ON login_sessions (expires_at);

CREATE TABLE consents (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    subject TEXT NOT NULL,
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (subject, client_pk, resource_id)
);
CREATE INDEX consents_realm ON consents (realm_id, updated_at);

CREATE TABLE token_families (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    subject TEXT NOT NULL,
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    offline BOOLEAN NOT NULL,
    auth_time BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT,
    revoked_reason TEXT
);
CREATE INDEX token_families_subject ON token_families (subject, client_pk, resource_id);
CREATE INDEX token_families_client ON token_families (client_pk);
CREATE INDEX token_families_expiry ON token_families (expires_at);

CREATE TABLE authorization_codes (
    code_hash BLOB PRIMARY KEY NOT NULL,
    family_id TEXT NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    subject TEXT NOT NULL,
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    scopes TEXT NOT NULL,
    offline BOOLEAN NOT NULL,
    auth_time BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    redeemed_at BIGINT
);
CREATE INDEX authorization_codes_expiry ON authorization_codes (expires_at);

CREATE TABLE refresh_tokens (
    token_hash BLOB PRIMARY KEY NOT NULL,
    family_id TEXT NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    rotated_at BIGINT,
    successor BLOB
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- Dynamic registration (RFC 7591/7592) under realm policy: how each client came to be, whether
-- a reviewer let it in, and the hash of its registration access token.
ALTER TABLE realms ADD COLUMN registration_policy TEXT NOT NULL DEFAULT 'review'
    CHECK (registration_policy IN ('open', 'initial_access_token', 'review', 'disabled'));
ALTER TABLE realms ADD COLUMN max_dynamic_clients BIGINT NOT NULL DEFAULT 1000
    CHECK (max_dynamic_clients BETWEEN 0 AND 1000000);
ALTER TABLE clients ADD COLUMN registration_kind TEXT NOT NULL DEFAULT 'admin'
    CHECK (registration_kind IN ('admin', 'dynamic', 'metadata_document'));
ALTER TABLE clients ADD COLUMN review_state TEXT NOT NULL DEFAULT 'approved'
    CHECK (review_state IN ('pending', 'approved', 'rejected', 'revoked', 'expired'));
ALTER TABLE clients ADD COLUMN source_ip TEXT;
ALTER TABLE clients ADD COLUMN review_reason TEXT;
ALTER TABLE clients ADD COLUMN reviewed_by TEXT;
ALTER TABLE clients ADD COLUMN reviewed_at BIGINT;
ALTER TABLE clients ADD COLUMN registration_token_hash BLOB;
CREATE INDEX clients_review ON clients (realm_id, review_state, created_at);
CREATE INDEX clients_source_ip ON clients (realm_id, source_ip);

CREATE TABLE initial_access_tokens (
    token_hash BLOB PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    label TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    uses_left BIGINT NOT NULL CHECK (uses_left >= 0)
);
ALTER TABLE realms ADD COLUMN metadata_document_policy TEXT NOT NULL DEFAULT 'review'
    CHECK (metadata_document_policy IN ('any', 'allow_list', 'review', 'disabled'));
ALTER TABLE realms ADD COLUMN metadata_document_domains TEXT NOT NULL DEFAULT '';

-- Who may get tokens for a resource: any client may ask its people for consent (the MCP
-- default) or only clients an admin granted; which people may use it (all, or holders of
-- named roles); the scopes a request without `scope` gets; whether self-registered machine
-- clients get client_credentials tokens without a reviewer's grant.
ALTER TABLE resources ADD COLUMN consent_policy TEXT NOT NULL DEFAULT 'any_client'
    CHECK (consent_policy IN ('any_client', 'granted_clients'));
ALTER TABLE resources ADD COLUMN people_roles TEXT NOT NULL DEFAULT '';
ALTER TABLE resources ADD COLUMN default_scopes TEXT NOT NULL DEFAULT '';
ALTER TABLE resources ADD COLUMN open_to_self_registered BOOLEAN NOT NULL DEFAULT FALSE;
