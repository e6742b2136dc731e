-- Foundation: realms, console users, one-time links, append-only audit log.
CREATE TABLE realms (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    email TEXT NOT NULL,
    display_name TEXT NOT NULL,
    password_hash TEXT,
    role TEXT NOT NULL CHECK (role IN ('admin', 'security_reviewer', 'developer')),
    disabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, email)
);

CREATE TABLE user_links (
    token_hash BYTEA PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    user_id TEXT REFERENCES users (id),
    purpose TEXT NOT NULL CHECK (purpose IN ('setup', 'password_reset')),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

CREATE TABLE audit_events (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    occurred_at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure')),
    request_id TEXT,
    client_ip TEXT,
    details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_realm_time ON audit_events (realm_id, occurred_at);
CREATE INDEX audit_events_action ON audit_events (action);

-- The audit log is append-only: refuse any UPDATE or DELETE, whoever issues it.
CREATE FUNCTION audit_events_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit events are append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
