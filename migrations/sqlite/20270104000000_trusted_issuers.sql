-- Enterprise-managed authorization (ID-JAG): the identity providers whose Identity Assertion
-- JWT Authorization Grants a realm's token endpoint accepts, which clients may present them,
-- and how their subjects become the realm's people.
CREATE TABLE trusted_issuers (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    issuer TEXT NOT NULL,
    display_name TEXT NOT NULL,
    jwks_uri TEXT,
    jwks TEXT,
    algorithms TEXT NOT NULL,
    client_ids TEXT NOT NULL,
    create_people BOOLEAN NOT NULL DEFAULT FALSE,
    link_by_email BOOLEAN NOT NULL DEFAULT FALSE,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, issuer)
);

-- Each ID-JAG `jti` is accepted once per issuer, until the assertion expires.
CREATE TABLE identity_assertion_jtis (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    issuer TEXT NOT NULL,
    jti TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, issuer, jti)
);
CREATE INDEX identity_assertion_jtis_expiry ON identity_assertion_jtis (expires_at);

-- Which person of the realm an upstream identity (issuer and subject) is.
CREATE TABLE person_identities (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    person_id TEXT NOT NULL REFERENCES people (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (realm_id, issuer, subject)
);
CREATE INDEX person_identities_person ON person_identities (person_id);

-- The identity provider whose assertion started a token family: disabling or removing it
-- revokes them.
ALTER TABLE token_families ADD COLUMN via_issuer TEXT;
CREATE INDEX token_families_via_issuer ON token_families (realm_id, via_issuer);
