-- Client secrets an administrator gave the gateway for registry servers with their own OAuth
-- authorization server (`auth.mode = oauth`) where the gateway is a confidential client (a
-- web application client at Google, for one). Sealed with the master key for exactly this realm
-- and server, and kept with the client id and authorization server they were issued for and the
-- server's URL: the gateway sends a secret only there, and only while the registry still names
-- all three. Never in a
-- registry release (releases are signed and handed to every laptop).
CREATE TABLE gateway_client_secrets (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    server_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    issuer TEXT NOT NULL,
    resource TEXT NOT NULL,
    sealed_secret BYTEA NOT NULL,
    set_by TEXT NOT NULL,
    set_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, server_id)
);
