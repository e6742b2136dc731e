//! Which `Core` operations write (and must leave an audit row), which only read, and which
//! writes `each_write_adds_an_audit_row` runs, in order.

/// Operations that change state. Each writes its audit row in the same store call as the
/// change. Those run by `each_write_adds_an_audit_row` are in [`RUN`]; the rest need an
/// HTTP fetch, a browser sign-in flow or a token and are checked by the API tests.
pub(super) const WRITES: &[&str] = &[
    // access
    "grant_access",
    "add_access",
    "revoke_access",
    // accounts
    "issue_setup_link",
    "login",
    "logout",
    "complete_setup",
    "reset_password",
    "change_own_password",
    "create_user",
    "create_user_with_password",
    "set_user_role",
    "set_user_disabled",
    "issue_password_reset",
    // agents
    "create_agent",
    "update_agent",
    "set_agent_disabled",
    "delete_agent",
    "bind_client_to_agent",
    // audit
    "export_audit",
    // authorize
    "authorize_sign_in",
    "authorize_decide",
    "revoke_connected_app",
    "revoke_my_connected_app",
    "revoke_own_connected_app",
    "account_sign_in",
    // clients
    "create_client",
    "update_client",
    "set_client_token_exchange",
    "create_resource_server_credentials",
    "rotate_client_secret",
    "set_client_enabled",
    "delete_client",
    "register_client_dynamically",
    "update_registration",
    "delete_registration",
    "create_initial_access_token",
    "approve_client",
    "approve_client_with_access",
    "decide_clients",
    "decide_clients_in_realms",
    "reject_client",
    "revoke_client",
    "restore_client",
    // integration
    "protect_mcp_server",
    "register_protected_resource",
    "check_mcp_server",
    // keys
    "rotate_signing_keys",
    // people
    "create_person",
    "update_person",
    "set_person_password",
    "set_person_disabled",
    // federation
    "create_trusted_issuer",
    "update_trusted_issuer",
    "set_trusted_issuer_enabled",
    "delete_trusted_issuer",
    // chaining
    "create_trusting_server",
    "update_trusting_server",
    "set_trusting_server_enabled",
    "delete_trusting_server",
    // a link exists only after an ID-JAG: checked by the API tests
    "link_person_identity",
    "unlink_person_identity",
    // realms
    "create_realm",
    "update_realm",
    "set_registration_policy",
    "set_realm_enabled",
    // resources
    "create_resource",
    "update_resource",
    "set_resource_enabled",
    "reject_submission",
    "delete_resource",
    "set_default_resource",
    "set_resource_policy",
    // registry
    "set_registry_settings",
    "replace_registry_draft",
    "save_registry_groups",
    "save_registry_server",
    "edit_registry_server",
    "delete_registry_server",
    "publish_registry",
    "rollback_registry",
    "approve_registry_request",
    "reject_registry_request",
    "withdraw_registry_request",
    "add_registry_member",
    "remove_registry_member",
    "create_registry_resource",
    // gateway (a call's row and its upstream token need an MCP request: checked by the API
    // tests)
    "enable_gateway",
    "attach_gateway_server",
    "detach_gateway_server",
    "observe_gateway_tools",
    "accept_tool_pins",
    "record_gateway_call",
    "gateway_upstream_token",
    "request_gateway_approval",
    "decide_gateway_approval",
    // uses an approval up; the call it runs writes the row (`gateway.call`)
    "redeem_gateway_approval",
    // denies the caller's own waiting approval, audited as gateway.approval_deny
    "withdraw_gateway_approval",
    // a person's own upstream account (a browser flow and an upstream authorization server:
    // checked by the API tests); a refused refresh disconnects (gateway.disconnect)
    "finish_gateway_connection",
    "disconnect_own_gateway_connection",
    "gateway_person_token",
    // the client secret sent to an upstream's authorization server (needs a published
    // release naming the server's client and authorization server: checked by the API tests)
    "set_gateway_client_secret",
    "clear_gateway_client_secret",
    // drift (a report needs a person's registry token: checked by the API tests)
    "forget_drift_device",
    // tokens
    "issue_token",
    "revoke_token",
    // console single sign-on (sign-ins are audited as session.login / user.create /
    // user.role_change; checked by the storage conformance and browser tests)
    "create_sso_provider",
    "update_sso_provider",
    "set_sso_provider_enabled",
    "delete_sso_provider",
    "set_password_sign_in",
    "set_user_break_glass",
    "finish_sso_sign_in",
    // second factors (the code checks and enrolments are audited as session.second_factor /
    // user.second_factor_enrol / user.recovery_codes / user.second_factor_remove; checked by
    // the storage conformance, API and browser tests)
    "set_second_factor_policy",
    "finish_second_factor",
    "confirm_own_enrolment",
    "new_own_recovery_codes",
    "remove_own_second_factor",
    "reset_second_factor",
    // brokering: a realm's sign-in providers for its people (the sign-ins are audited as
    // authorize.login / person.create / person.link / person.update; checked by the API tests)
    "create_realm_provider",
    "update_realm_provider",
    "set_realm_provider_enabled",
    "delete_realm_provider",
    "set_realm_password_sign_in",
    "finish_upstream",
    "authorize_link",
];

/// Operations that change nothing an audit row would record. Each says why.
pub(super) const READS: &[&str] = &[
    "realm_overview",
    "list_trusted_issuers",
    "list_trusting_servers",
    // The gateway's view: where it is, who calls, what a caller or agent reaches, the pins
    // and attachments.
    "gateway_info",
    "gateway_metadata",
    "gateway_caller",
    "gateway_toolset",
    "agent_toolset",
    "list_tool_pins",
    "list_gateway_attachments",
    "list_gateway_approvals",
    "gateway_waiting_count",
    "gateway_overview",
    // A person's upstream connections: the connect link (its pending state is a sealed cookie
    // until the callback, which writes), the gateway's client document, who is connected.
    "gateway_connect_page",
    "start_gateway_connection",
    "gateway_client_metadata",
    "gateway_person_connection",
    "own_gateway_connections",
    "gateway_callback",
    // Waits for the audit writer to write what it was handed (shutdown, tests): no row of its
    // own.
    "drain_audit",
    // Fetches an IdP's JWKS (as the grant does, through the same cache); changes no row.
    "check_trusted_issuer_keys",
    "person_identities",
    "list_agents",
    "agent",
    // Caches and housekeeping: no decision by anyone. `purge_expired` deletes rows that expired
    // (the expiry of unused clients it decides is audited as `client.expire`);
    // `flush_token_use` writes last-use times.
    "purge_expired",
    "flush_token_use",
    // Marks a person's upstream token the upstream refused as expired, so the next call
    // refreshes it: no decision by anyone.
    "expire_gateway_person_token",
    // Starts a sign-in (a ticket in memory); the decision is audited by `authorize_decide`.
    "authorize",
    // The device grant (RFC 8628): a device's request stores a pending row nobody decided
    // (throttled and bounded per client, like an authorization request that stores nothing);
    // the page and the typed code change nothing. The answer is audited where the person
    // gives it (`authorize_decide`: consent.grant / consent.deny, authorize.code).
    "device_authorization",
    "device_page",
    "device_enter",
    // A laptop's drift report: telemetry that replaces the device's previous report (rate
    // limited, size capped); it decides nothing, and a row per report would bury the log. The
    // console reads it; forgetting a device is audited (`forget_drift_device`).
    "report_drift",
    "registry_drift",
    "registry_drift_device",
    // Ends a browser's sign-in at the realm's pages (deletes its session row, which would
    // expire anyway); the sign-ins are audited (`authorize_sign_in`, `account_sign_in`). Not
    // audited yet, unlike a console sign-out (session.logout): a known gap.
    "end_login_session",
    // The account page: it writes only through `account_sign_in` and
    // `revoke_own_connected_app` (each audited), or ends a sign-in (`end_login_session`).
    "account",
    "connected_apps",
    "my_connected_apps",
    "own_connected_apps",
    "serving_realm_name",
    "list_audit",
    "audit_of",
    "audit_log_page",
    "audit_history",
    "mcp_overview",
    "integration_endpoints",
    "client_access",
    "resource_access",
    "read_registration",
    "review_queue",
    "review_counts",
    "pending_review_count",
    "review_inbox",
    "review_inbox_counts",
    "list_clients",
    "client_choices",
    "get_client",
    "resource_server_credentials",
    // Refreshes the in-memory cache of a client's `jwks_uri`; nothing stored changes.
    "refresh_client_keys",
    "list_resources",
    "local_token_horizon",
    "resource",
    "default_resource",
    "realm_scopes",
    "default_token_ttl",
    // Stores the master key's check value once, when a database first starts (the first
    // instance's key wins); startup housekeeping no one decides.
    "check_master_key",
    "ready",
    "signer_for_benchmark",
    "list_signing_keys",
    "authorization_server_metadata",
    // Creates the realm's first key pair on first use (audited as `key.create`).
    "jwks",
    "introspect_token",
    // First start: creates the default realm (audited as `realm.create`) and, through
    // `issue_setup_link`, the setup link.
    "bootstrap",
    "ensure_default_realm",
    // At start: each realm's Portcullis CLI client (audited as `client.create` by `system`).
    "ensure_first_party_clients",
    "principal",
    "find_principal_by_email",
    "setup_link_is_valid",
    "reset_link_email",
    "list_users",
    "user",
    "admin_realm",
    "list_realms",
    "get_realm",
    "realm_name",
    "list_people",
    "person",
    "registry",
    "registry_releases",
    "registry_release",
    "registry_members",
    "registry_member_counts",
    "registry_groups_of",
    "registry_server",
    "registry_entries_for",
    "registry_request_waiting",
    // Renders a release into a harness's files (nothing stored).
    "deliver_registry",
    // Reads a server.json (fetched read-only, or given) into an unsaved draft entry.
    "import_registry_server",
    // The published registry over HTTP (releases, MCP Registry API): reads.
    "served_release",
    "served_release_id",
    "served_registry",
    // Console single sign-on: the providers and settings (reads), a discovery run now (fetches,
    // stores nothing), the start of a sign-in (stores nothing: the pending sign-in goes to the
    // browser, sealed), the sign-out URL, and the sealing of the pending sign-in.
    "list_sso_providers",
    "sign_in_providers",
    "test_sso_provider",
    "start_sso_sign_in",
    "sso_logout_url",
    "password_sign_in_break_glass_only",
    "user_sso_identity",
    "own_sign_in",
    // Second factors: the requirement and an account's state (reads); what follows a first
    // factor (decides, stores nothing); an enrolment's waiting secret (stored sealed until its
    // first code confirms it, which is audited).
    "second_factor_policy",
    "second_factor_step",
    "sign_in_enrolment",
    "own_second_factor",
    "start_own_enrolment",
    "user_second_factor",
    // Brokering: a realm's providers (reads), a discovery run now (stores nothing), the
    // redirect URI to register, and the start of a sign-in (stores nothing: the pending
    // sign-in goes to the browser, sealed). The rings and units of a registry token's holder.
    "list_realm_providers",
    "test_realm_provider",
    "realm_provider_redirect_uri",
    "authorize_upstream",
    "registry_groups_of_bearer",
];

/// The writes `each_write_adds_an_audit_row` runs.
pub(super) const RUN: &[&str] = &[
    "create_realm",
    "update_realm",
    "set_realm_enabled",
    "create_resource",
    "update_resource",
    "set_resource_policy",
    "set_resource_enabled",
    "set_default_resource",
    "create_client",
    "update_client",
    "set_client_token_exchange",
    "rotate_client_secret",
    "set_client_enabled",
    "grant_access",
    "revoke_access",
    "create_agent",
    "update_agent",
    "bind_client_to_agent",
    "set_agent_disabled",
    "delete_agent",
    "create_resource_server_credentials",
    "create_initial_access_token",
    "create_person",
    "update_person",
    "set_person_password",
    "set_person_disabled",
    "create_trusted_issuer",
    "update_trusted_issuer",
    "set_trusted_issuer_enabled",
    "delete_trusted_issuer",
    "create_trusting_server",
    "update_trusting_server",
    "set_trusting_server_enabled",
    "delete_trusting_server",
    "create_sso_provider",
    "update_sso_provider",
    "set_sso_provider_enabled",
    "delete_sso_provider",
    "create_realm_provider",
    "update_realm_provider",
    "set_realm_password_sign_in",
    "set_realm_password_sign_in",
    "set_realm_provider_enabled",
    "delete_realm_provider",
    "create_user",
    "set_user_role",
    "set_user_disabled",
    "rotate_signing_keys",
    "export_audit",
    "delete_client",
    "delete_resource",
    "set_registry_settings",
    "replace_registry_draft",
    "save_registry_groups",
    "save_registry_server",
    "edit_registry_server",
    "delete_registry_server",
    "publish_registry",
    "rollback_registry",
    "add_registry_member",
    "remove_registry_member",
    "approve_registry_request",
    "reject_registry_request",
    "withdraw_registry_request",
    "create_registry_resource",
    "enable_gateway",
    "attach_gateway_server",
    "detach_gateway_server",
    "observe_gateway_tools",
    "accept_tool_pins",
    "set_second_factor_policy",
];
