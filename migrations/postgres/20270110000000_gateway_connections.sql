-- The gateway's per-person upstream connections: for a registry server with its own OAuth
-- authorization server (`auth.mode = oauth`), each person connects their own account once and
-- the gateway keeps that person's tokens, sealed with the master key and bound to the realm,
-- the person and the server (a row is never readable as another person's). The subject is a
-- realm person or a console account (people of the default realm), hence no foreign key.
CREATE TABLE gateway_connections (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    subject TEXT NOT NULL,
    server_id TEXT NOT NULL,
    issuer TEXT NOT NULL,
    sealed_tokens BYTEA NOT NULL,
    access_expires_at BIGINT NOT NULL,
    scope TEXT NOT NULL,
    connected_at BIGINT NOT NULL,
    refreshed_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, subject, server_id)
);
