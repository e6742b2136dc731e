-- When a client last got a token for a resource: counted in memory on the token path and
-- written every few seconds (never one write per token).
ALTER TABLE client_grants ADD COLUMN last_used_at BIGINT;
