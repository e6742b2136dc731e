-- Registration budgets per realm: per address (was a constant, 10 per 15 minutes), and for
-- trusted networks (an office behind one NAT, a VPN), one larger budget each.
ALTER TABLE realms ADD COLUMN registrations_per_source BIGINT NOT NULL DEFAULT 10;
ALTER TABLE realms ADD COLUMN trusted_networks TEXT NOT NULL DEFAULT '';
ALTER TABLE realms ADD COLUMN registrations_per_trusted_network BIGINT NOT NULL DEFAULT 200;
-- Hosts whose Client ID Metadata Documents may ask for machine access (client_credentials).
ALTER TABLE realms ADD COLUMN metadata_document_machine_domains TEXT NOT NULL DEFAULT '';
