-- What a client registered says of its risk (authz::clients::risk_of): flags (1 redirects to a
-- web host, 2 to a private-use scheme, 4 client credentials) and their weighted sum, written
-- with every registration and change; the review inbox sorts and filters by them.
ALTER TABLE clients ADD COLUMN risk_flags BIGINT NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN risk_score BIGINT NOT NULL DEFAULT 0;
-- Stored redirect URIs were checked at registration: https is a web host, http only loopback,
-- anything else a private-use scheme.
UPDATE clients SET risk_flags =
    (CASE WHEN EXISTS (SELECT 1 FROM json_each(clients.metadata, '$.redirect_uris') r
                       WHERE r.value LIKE 'https:%') THEN 1 ELSE 0 END)
  + (CASE WHEN EXISTS (SELECT 1 FROM json_each(clients.metadata, '$.redirect_uris') r
                       WHERE r.value NOT LIKE 'https:%' AND r.value NOT LIKE 'http:%') THEN 2 ELSE 0 END)
  + (CASE WHEN (' ' || grant_types || ' ') LIKE '% client_credentials %' THEN 4 ELSE 0 END);
UPDATE clients SET risk_score =
    (CASE WHEN (risk_flags & 1) <> 0 THEN 3 ELSE 0 END)
  + (CASE WHEN (risk_flags & 2) <> 0 THEN 2 ELSE 0 END)
  + (CASE WHEN (risk_flags & 4) <> 0 THEN 4 ELSE 0 END);
-- Riskiest first, by key, across every realm and within one.
CREATE INDEX clients_review_risk ON clients (review_state, risk_score, created_at, id);
CREATE INDEX clients_review_realm_risk ON clients (realm_id, review_state, risk_score, created_at, id);
