-- The MCP gateway. Tool pins: for each registry server, every tool's definition as the server
-- lists it now and as an administrator accepted it (RFC 8785 canonical JSON and its SHA-256);
-- the gateway offers a tool only while the two are the same. Attachments: the registry servers
-- an agent's creator or an administrator attached to it (an agent reaches no other).
CREATE TABLE gateway_tool_pins (
    realm_id TEXT NOT NULL REFERENCES realms (id),
    server_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    seen_definition TEXT,
    seen_sha256 TEXT,
    seen_at BIGINT NOT NULL,
    accepted_definition TEXT,
    accepted_sha256 TEXT,
    accepted_by TEXT,
    accepted_at BIGINT,
    PRIMARY KEY (realm_id, server_id, tool)
);

CREATE TABLE gateway_attachments (
    agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    server_id TEXT NOT NULL,
    attached_by TEXT NOT NULL,
    attached_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, server_id)
);

-- Approvals: a call that can change things (a tool not marked read-only) waits for a person.
-- The arguments themselves are never stored: their SHA-256 (of RFC 8785 canonical JSON) binds
-- the approval to the exact call, and a redacted preview is what the approver sees.
CREATE TABLE gateway_approvals (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id),
    caller_key TEXT NOT NULL,
    sub TEXT NOT NULL,
    agent_id TEXT,
    client_id TEXT NOT NULL,
    server_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    arguments_preview TEXT NOT NULL,
    side_effect_class TEXT NOT NULL,
    risk TEXT NOT NULL,
    status TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    decided_by TEXT,
    decided_at BIGINT,
    reason TEXT
);
CREATE INDEX gateway_approvals_queue ON gateway_approvals (realm_id, status, requested_at);
