-- Drift reports (`portcullis-cli drift --report`): the latest report of each person's device,
-- replaced by the next one. A report names servers, hosts and hashes only (never a command,
-- argument or URL path); the whole report is kept as JSON for the device's page, its findings
-- once more as rows for the realm's summary. A person is at most MAX_DEVICES rows (the oldest
-- goes), and a row dies with its person or console user.
CREATE TABLE drift_reports (
    realm_id TEXT NOT NULL REFERENCES realms (id) ON DELETE CASCADE,
    subject TEXT NOT NULL,
    device TEXT NOT NULL,
    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
    person_id TEXT REFERENCES people (id) ON DELETE CASCADE,
    received_at BIGINT NOT NULL,
    release_id TEXT NOT NULL,
    release_sequence BIGINT NOT NULL,
    findings BIGINT NOT NULL,
    problems BIGINT NOT NULL,
    report TEXT NOT NULL,
    PRIMARY KEY (realm_id, subject, device),
    CHECK ((CASE WHEN user_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN person_id IS NULL THEN 0 ELSE 1 END) = 1)
);
CREATE INDEX drift_reports_received ON drift_reports (realm_id, received_at);
CREATE TABLE drift_findings (
    realm_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    device TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    FOREIGN KEY (realm_id, subject, device) REFERENCES drift_reports (realm_id, subject, device) ON DELETE CASCADE
);
CREATE INDEX drift_findings_report ON drift_findings (realm_id, subject, device);
CREATE INDEX drift_findings_name ON drift_findings (realm_id, kind, name);
