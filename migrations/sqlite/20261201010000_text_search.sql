-- Substring search for the console's lists, served by FTS5 trigram tables kept by triggers:
-- a search stays fast at hundreds of thousands of clients and agents and millions of audit rows.
CREATE VIRTUAL TABLE clients_search USING fts5(id UNINDEXED, client_id, name, tokenize = 'trigram');
INSERT INTO clients_search (id, client_id, name) SELECT id, client_id, name FROM clients;
CREATE TRIGGER clients_search_insert AFTER INSERT ON clients BEGIN
    INSERT INTO clients_search (id, client_id, name) VALUES (NEW.id, NEW.client_id, NEW.name);
END;
CREATE TRIGGER clients_search_update AFTER UPDATE OF client_id, name ON clients BEGIN
    UPDATE clients_search SET client_id = NEW.client_id, name = NEW.name WHERE id = OLD.id;
END;
CREATE TRIGGER clients_search_delete AFTER DELETE ON clients BEGIN
    DELETE FROM clients_search WHERE id = OLD.id;
END;

CREATE VIRTUAL TABLE agents_search USING fts5(id UNINDEXED, name, owner, tokenize = 'trigram');
INSERT INTO agents_search (id, name, owner) SELECT id, name, owner FROM agents;
CREATE TRIGGER agents_search_insert AFTER INSERT ON agents BEGIN
    INSERT INTO agents_search (id, name, owner) VALUES (NEW.id, NEW.name, NEW.owner);
END;
CREATE TRIGGER agents_search_update AFTER UPDATE OF name, owner ON agents BEGIN
    UPDATE agents_search SET name = NEW.name, owner = NEW.owner WHERE id = OLD.id;
END;
CREATE TRIGGER agents_search_delete AFTER DELETE ON agents BEGIN
    DELETE FROM agents_search WHERE id = OLD.id;
END;

-- Audit rows are append-only, so their index needs only an insert trigger; it reads the text
-- from the audit table itself (external content keyed by the audit id).
CREATE VIRTUAL TABLE audit_search USING fts5(actor, target, content = 'audit_events', content_rowid = 'id', tokenize = 'trigram');
INSERT INTO audit_search (audit_search) VALUES ('rebuild');
CREATE TRIGGER audit_search_insert AFTER INSERT ON audit_events BEGIN
    INSERT INTO audit_search (rowid, actor, target) VALUES (NEW.id, NEW.actor, NEW.target);
END;

-- Listing the newest audit events of one realm.
CREATE INDEX audit_events_realm_id ON audit_events (realm_id, id);
