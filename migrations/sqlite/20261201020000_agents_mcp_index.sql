-- The console's "MCP-capable" agents filter reads this partial index for its page and its count
-- instead of testing every agent's roles. The WHERE clause is the store's predicate, verbatim
-- (a unit test keeps them equal): both planners use a partial index only when the query repeats it.
CREATE INDEX agents_mcp_capable ON agents (realm_id, name)
    WHERE ((' ' || roles || ' ') LIKE '% mcp %' OR (' ' || roles) LIKE '% mcp:%');
