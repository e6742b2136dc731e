-- The device authorization grant (RFC 8628): a device code the client polls with and the
-- user code a person types on the verification page. Both are random; the device code is
-- stored as SHA-256, the user code (short, typed by hand) as normalised text, unique while
-- it lives. An approval stores an authorization code (code_hash) that the poll redeems, so a
-- device approval dies exactly as a code does (disconnect, revocation, password change,
-- disabled person).
CREATE TABLE device_codes (
    device_code_hash BLOB PRIMARY KEY NOT NULL,
    user_code TEXT NOT NULL UNIQUE,
    realm_id TEXT NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    offline BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    interval_secs BIGINT NOT NULL,
    last_poll_at BIGINT,
    state TEXT NOT NULL,
    subject TEXT,
    code_hash BLOB
);
CREATE INDEX device_codes_expiry ON device_codes (expires_at);
CREATE INDEX device_codes_client ON device_codes (client_pk, expires_at);
