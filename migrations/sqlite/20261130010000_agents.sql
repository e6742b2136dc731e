-- Agents (non-human identities) and the binding of clients to them.
CREATE TABLE agents (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    name TEXT NOT NULL,
    owner TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    roles TEXT NOT NULL,
    expires_at BIGINT,
    disabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (realm_id, name)
);

ALTER TABLE clients ADD COLUMN agent_id TEXT REFERENCES agents (id);
CREATE INDEX clients_agent ON clients (agent_id);
