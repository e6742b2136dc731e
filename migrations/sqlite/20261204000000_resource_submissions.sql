-- A resource a developer submitted from "Protect your MCP server": created disabled, waiting for
-- an admin; the developer's email until an admin enables or disables it (the audit log keeps it).
ALTER TABLE resources ADD COLUMN submitted_by TEXT;
