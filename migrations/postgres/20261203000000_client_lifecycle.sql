-- When a client last got a token (written in batches, like grants' last use): a
-- self-registered client unused for the realm's `unused_client_ttl_secs` expires (0: never).
ALTER TABLE clients ADD COLUMN last_token_at BIGINT;
CREATE INDEX clients_lifecycle ON clients (registration_kind, review_state, last_token_at);
ALTER TABLE realms ADD COLUMN unused_client_ttl_secs BIGINT NOT NULL DEFAULT 2592000
    CHECK (unused_client_ttl_secs >= 0);
-- Lifetime of the secrets dynamic registration issues (`client_secret_expires_at`; 0: never).
ALTER TABLE realms ADD COLUMN client_secret_ttl_secs BIGINT NOT NULL DEFAULT 0
    CHECK (client_secret_ttl_secs >= 0);
