-- A realm may name the resource that token requests without a `resource` parameter are for.
-- NULL (the default) means such requests are refused with invalid_target.
ALTER TABLE realms ADD COLUMN default_resource_id TEXT REFERENCES resources (id) ON DELETE SET NULL;
