-- Authorization server: signing keys, protected resources, clients and their secrets,
-- revoked access tokens.
CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    alg TEXT NOT NULL CHECK (alg IN ('ES256', 'RS256', 'EdDSA')),
    state TEXT NOT NULL CHECK (state IN ('next', 'active', 'retired')),
    public_jwk TEXT NOT NULL,
    sealed_private_key BLOB NOT NULL,
    created_at BIGINT NOT NULL,
    activated_at BIGINT,
    retired_at BIGINT,
    -- Retired keys stay published until the last token they signed has expired.
    publish_until BIGINT
);
CREATE INDEX signing_keys_realm_state ON signing_keys (realm_id, state);

CREATE TABLE resources (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    slug TEXT NOT NULL,
    display_name TEXT NOT NULL,
    uri TEXT NOT NULL,
    scopes TEXT NOT NULL,
    token_ttl_secs BIGINT NOT NULL,
    signing_alg TEXT,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, slug),
    UNIQUE (realm_id, uri)
);

CREATE TABLE clients (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    auth_method TEXT NOT NULL,
    grant_types TEXT NOT NULL,
    scope TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, client_id)
);

CREATE TABLE client_secrets (
    id TEXT PRIMARY KEY NOT NULL,
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    secret_hash BLOB NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT
);
CREATE INDEX client_secrets_client ON client_secrets (client_pk);

CREATE TABLE revoked_tokens (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    jti TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, jti)
);
