-- private_key_jwt (RFC 7523): each assertion `jti` is accepted once, until the assertion expires.
CREATE TABLE client_assertion_jtis (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    client_id TEXT NOT NULL,
    jti TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, client_id, jti)
);
CREATE INDEX client_assertion_jtis_expiry ON client_assertion_jtis (expires_at);
