-- Identity chaining, the realm as an identity provider: the authorization servers that accept
-- its ID-JAGs, the resources and scopes those may name, and which of its clients may ask for
-- them (with the client id each is known by there and its row when listed: a JSON array of
-- [client_id, id there, client row] triples).
CREATE TABLE trusting_servers (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    issuer TEXT NOT NULL,
    display_name TEXT NOT NULL,
    resources TEXT NOT NULL,
    scopes TEXT NOT NULL,
    clients TEXT NOT NULL,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, issuer)
);
