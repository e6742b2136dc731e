-- The review inbox lists one review state across every realm, newest (or oldest) first, by key.
CREATE INDEX clients_review_inbox ON clients (review_state, created_at, id);
-- Within one realm the same order, with the id as the tie-breaker of the key.
CREATE INDEX clients_review_realm_inbox ON clients (realm_id, review_state, created_at, id);
DROP INDEX clients_review;
-- The navigation's count of waiting clients (every realm, each page load) reads only
-- self-registered clients.
CREATE INDEX clients_self_registered_review ON clients (review_state)
    WHERE registration_kind <> 'admin' AND resource_server_for IS NULL;
