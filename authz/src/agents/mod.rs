//! Agents: non-human identities that clients act for.
//!
//! An agent has an owner (a person's email), roles (e.g. `mcp:tools`), an optional expiry, and a
//! disabled flag. A client bound to an agent gets tokens only while the agent is active; the
//! granted scope is further limited to the agent's roles, the token never outlives the agent's
//! expiry, and it carries the agent's identity (`nhi`, `agent_id`, `agent_name`, `agent_owner`,
//! `roles`). A token stays active only while its client is still bound to that agent by the same
//! binding: unbinding, rebinding or deleting the agent ends it for good.
mod model;
mod ops;

pub use model::*;
