-- Sessions end when credentials change: a version bumped on every password change or reset.
ALTER TABLE users ADD COLUMN credential_version BIGINT NOT NULL DEFAULT 1;

-- A new id on every bind of a client to an agent; tokens carry it, so unbinding and binding
-- again never revives them. Existing bindings get one now.
ALTER TABLE clients ADD COLUMN agent_binding TEXT;
UPDATE clients SET agent_binding = 'bnd_' || lower(hex(randomblob(12))) WHERE agent_id IS NOT NULL;

-- Introspection credentials of a resource server: at most one client per resource.
ALTER TABLE clients ADD COLUMN resource_server_for TEXT REFERENCES resources (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX clients_resource_server ON clients (resource_server_for) WHERE resource_server_for IS NOT NULL;

-- At most one active and one next key per realm and algorithm. Duplicates left by concurrent
-- first use retire first: extra active keys stay published for the longest token lifetime,
-- extra next keys (which never signed) leave the JWKS at once.
UPDATE signing_keys
SET state = 'retired',
    retired_at = CAST(strftime('%s', 'now') AS INTEGER),
    publish_until = CAST(strftime('%s', 'now') AS INTEGER) + (CASE state WHEN 'active' THEN 3660 ELSE 0 END)
WHERE state IN ('active', 'next')
  AND kid <> (
    SELECT k2.kid FROM signing_keys k2
    WHERE k2.realm_id = signing_keys.realm_id AND k2.alg = signing_keys.alg AND k2.state = signing_keys.state
    ORDER BY k2.created_at DESC, k2.kid DESC LIMIT 1
  );
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (realm_id, alg) WHERE state = 'active';
CREATE UNIQUE INDEX signing_keys_one_next ON signing_keys (realm_id, alg) WHERE state = 'next';

-- Housekeeping deletes revocations once their tokens have expired.
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);

-- INSERT OR REPLACE deletes the old row without firing DELETE triggers (recursive triggers are
-- off by default): refuse any insert that names an existing audit id.
CREATE TRIGGER audit_events_no_replace BEFORE INSERT ON audit_events
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM audit_events WHERE id = NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'audit events are append-only');
END;
