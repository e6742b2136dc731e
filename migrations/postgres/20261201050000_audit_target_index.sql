-- An object's own history (its detail page lists the events whose target is that object).
CREATE INDEX audit_events_target ON audit_events (target, id);
