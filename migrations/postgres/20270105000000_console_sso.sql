-- Console single sign-on: the OpenID Connect providers console users sign in with, and which
-- provider identity (issuer and subject) each SSO console account is.
CREATE TABLE sso_providers (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    display_name TEXT NOT NULL,
    button_text TEXT NOT NULL,
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    -- Sealed with the master key (AES-256-GCM, the row id as associated data); NULL for a
    -- public client (PKCE only).
    sealed_client_secret BYTEA,
    scopes TEXT NOT NULL,
    groups_claim TEXT NOT NULL,
    -- JSON: {"admin": [...], "security_reviewer": [...], "developer": [...]}.
    role_rules TEXT NOT NULL,
    -- Whether an email the provider does not mark verified is taken as the account's.
    trust_email BOOLEAN NOT NULL DEFAULT FALSE,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, issuer, client_id)
);

CREATE TABLE user_identities (
    provider_id TEXT NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL UNIQUE REFERENCES users (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (provider_id, subject)
);
