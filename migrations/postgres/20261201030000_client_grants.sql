-- Per-resource access grants: a client gets tokens only for the resources it is granted, each
-- with its own subset of the resource's scopes (Auth0's authorized applications per API).
CREATE TABLE client_grants (
    client_pk TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (client_pk, resource_id)
);
CREATE INDEX client_grants_resource ON client_grants (resource_id, client_pk);

-- Nothing that works today breaks: every client that could get tokens is granted every resource
-- of its realm it could reach, with the scopes it could get there (its scopes and the
-- resource's, intersected).
INSERT INTO client_grants (client_pk, resource_id, scopes, created_at, updated_at)
SELECT c.id, r.id, string_agg(s.scope, ' ' ORDER BY s.scope),
       EXTRACT(EPOCH FROM now())::BIGINT, EXTRACT(EPOCH FROM now())::BIGINT
FROM clients c
JOIN resources r ON r.realm_id = c.realm_id
CROSS JOIN LATERAL unnest(string_to_array(r.scopes, ' ')) AS s(scope)
WHERE ' ' || c.grant_types || ' ' LIKE '% client_credentials %'
  AND s.scope <> ''
  AND s.scope = ANY (string_to_array(c.scope, ' '))
GROUP BY c.id, r.id;
