-- An event may concern a second object besides its target: a grant (target: the client) concerns
-- its resource, a binding (target: the client) its agent. Each object's history lists the
-- events that target it or concern it. Events from before this column concern nothing else.
ALTER TABLE audit_events ADD COLUMN related TEXT;
CREATE INDEX audit_events_related ON audit_events (related, id);
