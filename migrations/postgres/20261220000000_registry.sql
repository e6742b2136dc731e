-- The MCP server registry of each realm (issue 20).
--
-- One draft per realm, edited whole under a revision number (an edit names the revision it
-- started from, so two editors never overwrite each other), always a policy that passes its
-- checks. Releases are immutable: inserted once, never updated; `document` is the signed
-- release exactly as it is served, and `id` the SHA-256 of its manifest's canonical JSON.
CREATE TABLE registries (
    realm_id TEXT PRIMARY KEY NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    draft TEXT NOT NULL,
    revision BIGINT NOT NULL,
    require_approval BOOLEAN NOT NULL DEFAULT FALSE,
    api_access TEXT NOT NULL DEFAULT 'off',
    updated_at BIGINT NOT NULL,
    updated_by TEXT NOT NULL
);

CREATE TABLE registry_releases (
    realm_id TEXT NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    sequence BIGINT NOT NULL,
    id TEXT NOT NULL,
    document TEXT NOT NULL,
    published_at BIGINT NOT NULL,
    published_by TEXT NOT NULL,
    approved_by TEXT,
    rollback_of BIGINT,
    -- How many servers it holds and what it changed, for listing without the documents.
    servers BIGINT NOT NULL,
    changes TEXT NOT NULL,
    PRIMARY KEY (realm_id, sequence),
    UNIQUE (realm_id, id)
);

-- A publish, a roll back, or turning approval off, that waits for a second person; at most
-- one waits per realm. `base_sequence` is the latest release when it was asked for: once
-- another release is published, it can no longer be approved. `settings` (JSON) is set for a
-- settings change, whose `policy` is then the draft as it was.
CREATE TABLE registry_requests (
    id TEXT PRIMARY KEY NOT NULL,
    realm_id TEXT NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    policy TEXT NOT NULL,
    rollback_of BIGINT,
    base_sequence BIGINT NOT NULL,
    settings TEXT,
    requested_by TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    decided_by TEXT,
    decided_at BIGINT,
    reason TEXT,
    release_sequence BIGINT
);
CREATE UNIQUE INDEX registry_requests_one_pending ON registry_requests (realm_id) WHERE status = 'pending';
CREATE INDEX registry_requests_realm ON registry_requests (realm_id, requested_at);

-- Who is in a ring or unit: a console user, a person of the realm or an agent. Exactly one of
-- the three references is set (the one `member_kind` names), so a member leaves its groups
-- when it is deleted.
CREATE TABLE registry_members (
    realm_id TEXT NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    group_kind TEXT NOT NULL,
    group_id TEXT NOT NULL,
    member_kind TEXT NOT NULL,
    member_id TEXT NOT NULL,
    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
    person_id TEXT REFERENCES people (id) ON DELETE CASCADE,
    agent_id TEXT REFERENCES agents (id) ON DELETE CASCADE,
    added_at BIGINT NOT NULL,
    added_by TEXT NOT NULL,
    PRIMARY KEY (realm_id, group_kind, group_id, member_kind, member_id),
    CHECK ((CASE WHEN user_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN person_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN agent_id IS NULL THEN 0 ELSE 1 END) = 1)
);
CREATE INDEX registry_members_member ON registry_members (member_kind, member_id);
