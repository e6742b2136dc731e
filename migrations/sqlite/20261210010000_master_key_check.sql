-- The master key's check value: a constant sealed with the key of the instance that first set
-- up this database. Every instance opens it at start and on `/readyz`; one holding another key
-- refuses to serve instead of answering 500 when it meets a sealed signing key.
CREATE TABLE master_key_check (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    sealed BLOB NOT NULL,
    created_at BIGINT NOT NULL
);
