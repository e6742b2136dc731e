-- Substring search for the console's lists (`lower(column) LIKE '%…%'`), served by trigram
-- indexes: a search stays fast at hundreds of thousands of clients and agents and millions of
-- audit rows. pg_trgm ships with PostgreSQL and is a trusted extension (the database owner may
-- create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX clients_search_client_id ON clients USING gin (lower(client_id) gin_trgm_ops);
CREATE INDEX clients_search_name ON clients USING gin (lower(name) gin_trgm_ops);
CREATE INDEX agents_search_name ON agents USING gin (lower(name) gin_trgm_ops);
CREATE INDEX agents_search_owner ON agents USING gin (lower(owner) gin_trgm_ops);
CREATE INDEX audit_search_actor ON audit_events USING gin (lower(actor) gin_trgm_ops);
CREATE INDEX audit_search_target ON audit_events USING gin (lower(target) gin_trgm_ops);

-- Listing the newest audit events of one realm.
CREATE INDEX audit_events_realm_id ON audit_events (realm_id, id);
