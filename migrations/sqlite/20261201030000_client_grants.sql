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
-- resource's, intersected). Scopes are space-separated scope-tokens, which hold neither `"` nor
-- `\`, so they split safely as JSON arrays.
INSERT INTO client_grants (client_pk, resource_id, scopes, created_at, updated_at)
SELECT c.id, r.id, group_concat(rs.value, ' '), CAST(strftime('%s', 'now') AS INTEGER),
       CAST(strftime('%s', 'now') AS INTEGER)
FROM clients c
JOIN resources r ON r.realm_id = c.realm_id
JOIN json_each('["' || replace(r.scopes, ' ', '","') || '"]') rs
WHERE (' ' || c.grant_types || ' ') LIKE '% client_credentials %'
  AND rs.value <> ''
  AND rs.value IN (SELECT cs.value FROM json_each('["' || replace(c.scope, ' ', '","') || '"]') cs)
GROUP BY c.id, r.id;
