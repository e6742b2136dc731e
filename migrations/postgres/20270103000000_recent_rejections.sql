-- The Overview's "rejected in the last 30 days" reads one realm's recent rejections only.
CREATE INDEX clients_recent_decisions ON clients (realm_id, review_state, reviewed_at);
