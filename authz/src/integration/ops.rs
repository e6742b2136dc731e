//! The Integration screens' data from the core: the realm's MCP side, its endpoints and scopes.
use super::check::{
    self, CheckStep, Exchange, McpCheck, Verdict, get_probe, initialize_probe, judge_challenge,
    judge_forged, judge_metadata, show_request, show_response,
};
use super::model::{
    AuthorizationServer, ClientReviewNote, McpOverview, ProtectInput, Protection,
    canonical_server_url, metadata_urls, protect, short_name,
};

use crate::agents::AgentFilter;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::fetch::{Probe, ProbeResponse, parse_fetch_url};
use crate::keys::{Signer, SigningAlg, generate, new_kid};
use crate::paging::Page;
use crate::policy::{Permission, Principal};
use crate::resources::ResourceUri;
use crate::tokens::{ACCESS_TOKEN_TYP, AccessTokenClaims, TokenOrigin};

impl Core {
    /// The realm's MCP side: MCP-capable agents (all, active, expiring within `window_days`,
    /// and one page of those `show` picks: `all`, `active` or `expiring`), protected
    /// resources, clients waiting for review, endpoints. The developer's home: shown to
    /// everyone who may see resources.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (`window_days` outside 1–365).
    pub async fn mcp_overview(
        &self,
        p: &Principal,
        realm_name: &str,
        window_days: i64,
        show: &str,
        page: Page,
    ) -> Result<McpOverview> {
        p.require(Permission::ViewResources)?;
        if !(1..=365).contains(&window_days) {
            return Err(Error::field(
                "window_days",
                "The window is a whole number of days from 1 to 365.",
            ));
        }
        let realm = self.find_realm(realm_name).await?;
        let endpoints = self.realm_overview(p, realm_name).await?.endpoints;
        // Whoever may not see the realm's agents (developers) sees only the agents they own:
        // nobody else's owner, roles or clients.
        let mcp = AgentFilter {
            mcp_only: true,
            owner: (!p.role.can(Permission::ViewAgents)).then_some(p.email.as_str()),
            ..Default::default()
        };
        let one = Page::first(1);
        let active = AgentFilter {
            active_only: true,
            ..mcp
        };
        let expiring = AgentFilter {
            expiring_within: Some(window_days * 24 * 3600),
            ..mcp
        };
        let active = self
            .agent_summaries(&realm.id, active, one.clone())
            .await?
            .total;
        let expiring = self
            .agent_summaries(&realm.id, expiring, one.clone())
            .await?
            .total;
        let all = self
            .agent_summaries(&realm.id, mcp, one.clone())
            .await?
            .total;
        let shown = match show.trim() {
            "" | "all" => mcp,
            "active" => AgentFilter {
                active_only: true,
                ..mcp
            },
            "expiring" => AgentFilter {
                expiring_within: Some(window_days * 24 * 3600),
                ..mcp
            },
            _ => {
                return Err(Error::field("show", "Show all, active or expiring agents."));
            }
        };
        let listed = self.agent_summaries(&realm.id, shown, page).await?;
        let resources = self.store.list_resources(&realm.id).await?;
        Ok(McpOverview {
            endpoints,
            own_only: mcp.owner.is_some(),
            mcp_agents: all,
            active,
            expiring,
            window_days,
            resources: resources
                .iter()
                .filter(|r| r.submitted_by.is_none())
                .count() as u64,
            submitted: resources.iter().filter(|r| r.waiting()).count() as u64,
            pending_reviews: if p.role.can(Permission::ReviewClients) {
                Some(
                    self.store
                        .count_clients_in_review(&realm.id, crate::clients::ReviewState::Pending)
                        .await?,
                )
            } else {
                None
            },
            agents: listed,
        })
    }

    /// The realm as an MCP server sees it: issuer, discovery URLs, endpoints, scopes.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (unknown or disabled realm).
    pub async fn integration_endpoints(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<AuthorizationServer> {
        p.require(Permission::ViewResources)?;
        let realm = self.find_realm(realm_name).await?;
        let m = self.authorization_server_metadata(realm_name).await?;
        let public = self.base_url().to_owned();
        Ok(AuthorizationServer {
            realm: realm.display_name.clone(),
            metadata_url: format!(
                "{public}/.well-known/oauth-authorization-server/realms/{}",
                realm.name
            ),
            openid_configuration_url: format!("{}/.well-known/openid-configuration", m.issuer),
            jwks_uri: m.jwks_uri.clone(),
            token_endpoint: m.token_endpoint.clone(),
            authorization_endpoint: m.authorization_endpoint.clone(),
            registration_endpoint: m.registration_endpoint.clone(),
            introspection_endpoint: m.introspection_endpoint.clone(),
            revocation_endpoint: m.revocation_endpoint.clone(),
            scopes_supported: m
                .scopes_supported
                .iter()
                .filter(|s| s.as_str() != "offline_access")
                .cloned()
                .collect(),
            metadata_documents: m.client_id_metadata_document_supported,
            issuer: m.issuer,
        })
    }

    /// Everything a developer copies to protect the MCP server at `input.server_url` with the
    /// realm ("Protect your MCP server").
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (the input).
    pub async fn protect_mcp_server(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &ProtectInput,
    ) -> Result<Protection> {
        let server = self.integration_endpoints(p, realm_name).await?;
        let mut protection = protect(&server, input, self.config().allow_http_loopback)
            .map_err(|e| Error::field(e.field, e.message))?;
        let realm = self.find_realm(realm_name).await?;
        let uri = ResourceUri::parse(&protection.resource, true)
            .map_err(|m| Error::field("server_url", m))?;
        protection.registered = self
            .store
            .find_resource_by_uri(&realm.id, &uri)
            .await?
            .as_ref()
            .map(Into::into);
        let reviews = realm.registration_policy == crate::realms::RegistrationPolicy::Review
            || realm.metadata_document_policy == crate::realms::MetadataDocumentPolicy::Review;
        if reviews {
            protection.client_review = Some(ClientReviewNote {
                waiting: self
                    .store
                    .count_clients_in_review(&realm.id, crate::clients::ReviewState::Pending)
                    .await?,
                can_review: p.role.can(Permission::ReviewClients),
            });
        }
        Ok(protection)
    }

    /// Registers the MCP server at `input.server_url` as a protected resource of the realm, with
    /// the generator's canonical URL, name and scopes ("register it in one click"). An admin's
    /// is enabled at once; a developer's is a submission, created disabled until an admin
    /// enables it (at most [`crate::resources::MAX_SUBMISSIONS_PER_PERSON`] waiting per
    /// developer and [`crate::resources::MAX_SUBMISSIONS`] per realm).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (`server_url`, `resource_name`, `scopes`),
    /// `Taken` (`server_url`: a resource has the URL), `Conflict` (too many submissions waiting).
    pub async fn register_protected_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &ProtectInput,
        meta: &crate::audit::RequestMeta,
    ) -> Result<crate::resources::Resource> {
        let submit = !p.role.can(Permission::ManageResources);
        p.require(if submit {
            Permission::SubmitResources
        } else {
            Permission::ManageResources
        })?;
        if submit {
            self.client_throttle
                .submission_change(p.user_id.as_str(), self.now())
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        }
        let server = self.integration_endpoints(p, realm_name).await?;
        let protection = protect(&server, input, self.config().allow_http_loopback)
            .map_err(|e| Error::field(e.field, e.message))?;
        let realm = self.find_realm(realm_name).await?;
        let uri = url::Url::parse(&protection.resource)
            .map_err(|_| Error::field("server_url", "Not an absolute URL."))?;
        let typed_name = input.resource_name.trim();
        let name = if typed_name.is_empty() {
            format!(
                "{}{}",
                uri.host_str().unwrap_or_default(),
                uri.path().trim_end_matches('/')
            )
        } else {
            typed_name.to_owned()
        };
        let fields = crate::resources::ResourceFields::parse(
            &crate::resources::ResourceInput {
                slug: String::new(),
                display_name: name.chars().take(100).collect(),
                uri: protection.resource.clone(),
                scopes: protection.scopes.join(" "),
                token_ttl_secs: String::new(),
                signing_alg: String::new(),
                enabled: true,
            },
            self.config().allow_http_loopback,
        )
        .map_err(|e| {
            // The resource's fields as this form names them.
            let field_of = |field: &str| match field {
                "name" => "resource_name",
                "scopes" => "scopes",
                _ => "server_url",
            };
            let message_of = |field: &str, message: String| {
                if field == "scopes" {
                    "Name at least one scope to register the server: its tokens carry only scopes it accepts.".to_owned()
                } else {
                    message
                }
            };
            match e {
                Error::InvalidField { field, message } => Error::InvalidField {
                    field: field_of(field),
                    message: message_of(field, message.into_owned()).into(),
                },
                Error::Findings(found) => Error::Findings(
                    found
                        .into_iter()
                        .map(|f| portcullis_manifest::Finding {
                            field: field_of(&f.field).to_owned(),
                            message: message_of(&f.field, f.message),
                        })
                        .collect(),
                ),
                other => other,
            }
        })?;
        // Room for a `-NN` suffix within the 63 characters of an id.
        let slug = self.free_slug(&realm.id, &short_name(&name, 55)).await?;
        self.insert_new_resource(
            p,
            &realm,
            slug,
            fields,
            submit.then(|| p.email.clone()),
            meta,
        )
        .await
        .map_err(|e| match e {
            Error::Taken { message, .. } => Error::Taken {
                field: "server_url",
                message,
            },
            other => other,
        })
    }

    /// `base`, or `base-2`, `base-3`… : the first id no resource of the realm has.
    async fn free_slug(&self, realm_id: &crate::ids::RealmId, base: &str) -> Result<String> {
        let base = if base == "mcp-server" || base.is_empty() {
            "mcp-server"
        } else {
            base
        };
        for n in 1..=50 {
            let slug = if n == 1 {
                base.to_owned()
            } else {
                format!("{base}-{n}")
            };
            if self.store.find_resource(realm_id, &slug).await?.is_none() {
                return Ok(slug);
            }
        }
        Err(Error::field(
            "resource_name",
            "Too many resources have ids like this name; choose another name.",
        ))
    }
}

impl Core {
    /// Runs the MCP client's discovery steps against the server at `url` and judges each
    /// ("Check an MCP server", `portcullis check-mcp`): the unauthenticated `401` and its
    /// challenge, the protected-resource metadata (its `resource`, this realm as its
    /// authorization server), this realm's side, the resource registered here, and a token this
    /// realm did not sign refused. Outbound requests follow the fetcher's SSRF rules (public
    /// addresses only; loopback only with the development settings).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (`server_url`), `Throttled` (more than
    /// [`crate::throttle::MAX_MCP_CHECKS_PER_ACCOUNT`] checks per account in 15 minutes).
    pub async fn check_mcp_server(
        &self,
        p: &Principal,
        realm_name: &str,
        url: &str,
        meta: &crate::audit::RequestMeta,
    ) -> Result<McpCheck> {
        let server = self.integration_endpoints(p, realm_name).await?;
        let realm = self.find_realm(realm_name).await?;
        let (resource, _) = canonical_server_url(url, self.config().allow_http_loopback)
            .map_err(|m| Error::field("server_url", m))?;
        let target = parse_fetch_url(resource.as_str(), self.config().allow_loopback_fetch)
            .map_err(|m| {
                Error::field(
                    "server_url",
                    format!("{m} Servers on this machine or a private network are checked only with the development setting dev.allow_loopback_client_urls."),
                )
            })?;
        if *p != Principal::cli() {
            self.client_throttle
                .mcp_check(p.user_id.as_str(), self.now())
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        }
        let mut steps = Vec::with_capacity(5);

        let probe = initialize_probe(&target, None);
        let first = self.send(&probe).await;
        let challenge = match &first {
            Ok(r) => judge_challenge(r, &server.scopes_supported),
            Err(why) => check::Challenge {
                verdict: Verdict::Fail,
                reason: format!("The server could not be reached: {why}."),
                resource_metadata: None,
                scope: None,
            },
        };
        steps.push(CheckStep {
            id: "challenge",
            title: "A request without a token gets 401 and a challenge",
            verdict: challenge.verdict,
            reason: challenge.reason.clone(),
            exchanges: vec![exchange(&probe, &first)],
        });
        let reachable = first.is_ok();
        steps.push(if reachable {
            self.check_metadata(&resource, &target, &challenge, &server)
                .await
        } else {
            not_run(
                "metadata",
                "The protected-resource metadata names this server and this realm",
            )
        });
        let metadata_ok = steps[1].verdict == Verdict::Pass || steps[1].verdict == Verdict::Warn;
        steps.push(authorization_server_step(&server, metadata_ok));
        steps.push(
            self.registered_step(&realm.id, &resource, &challenge)
                .await?,
        );
        steps.push(if reachable {
            self.forged_token_step(&target, &resource, &server.issuer, &challenge)
                .await
        } else {
            not_run("forged_token", "A token this realm did not sign is refused")
        });
        let check = McpCheck {
            url: resource.as_str().to_owned(),
            steps,
        };
        self.record_check(p, &realm.id, &check, meta).await?;
        Ok(check)
    }

    /// Who checked which server (outbound requests on a person's behalf), and how it went.
    async fn record_check(
        &self,
        p: &Principal,
        realm_id: &crate::ids::RealmId,
        check: &McpCheck,
        meta: &crate::audit::RequestMeta,
    ) -> Result<()> {
        let mut event = self.event(
            realm_id,
            &p.email,
            crate::audit::action::MCP_CHECK,
            crate::audit::AuditSubject::McpServer(check.url.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "passed": check.passed(),
            "steps": check
                .steps
                .iter()
                .map(|s| serde_json::json!({"step": s.id, "verdict": s.verdict}))
                .collect::<Vec<_>>(),
        });
        self.store.insert_audit_event(&event).await?;
        tracing::info!(mcp_server.uri = %check.url, passed = check.passed(), "Checked an MCP server");
        Ok(())
    }

    async fn send(&self, probe: &Probe) -> std::result::Result<ProbeResponse, String> {
        self.fetcher.probe(probe).await.map_err(|e| match e {
            crate::fetch::FetchError::Failed(why) => why,
            crate::fetch::FetchError::Refused(why) => format!("refused: {why}"),
        })
    }

    /// Step 2: the metadata the challenge names, or at the well-known URLs (path-inserted, then
    /// root) when it names none.
    async fn check_metadata(
        &self,
        resource: &ResourceUri,
        target: &url::Url,
        challenge: &check::Challenge,
        server: &AuthorizationServer,
    ) -> CheckStep {
        let mut step = CheckStep {
            id: "metadata",
            title: "The protected-resource metadata names this server and this realm",
            verdict: Verdict::Fail,
            reason: String::new(),
            exchanges: Vec::new(),
        };
        let (candidates, named) = match &challenge.resource_metadata {
            Some(u) => (vec![u.clone()], true),
            None => (metadata_urls(resource), false),
        };
        let mut note = String::new();
        let mut tried = Vec::new();
        for candidate in candidates {
            let url = match parse_fetch_url(&candidate, self.config().allow_loopback_fetch) {
                Ok(u) => u,
                Err(why) => {
                    step.reason = format!("The metadata URL {candidate} cannot be fetched: {why}");
                    return step;
                }
            };
            // Only what RFC 9728 §3 names: the checker fetches no other URL a server puts in
            // its header (it is no proxy).
            if !url
                .path()
                .starts_with("/.well-known/oauth-protected-resource")
                || url.query().is_some()
            {
                step.reason = format!(
                    "The resource_metadata URL {url} is not a /.well-known/oauth-protected-resource URL without a query (RFC 9728 §3); it was not fetched."
                );
                return step;
            }
            if named && url.origin() != target.origin() {
                note = format!(
                    " Note: the metadata is served from another origin ({}); clients accept it, but check it is yours.",
                    url.origin().ascii_serialization()
                );
            }
            let probe = get_probe(&url);
            let got = self.send(&probe).await;
            step.exchanges.push(exchange(&probe, &got));
            match got {
                Ok(r) if r.status == 200 || named => {
                    let (verdict, reason) = judge_metadata(
                        &r,
                        resource.as_str(),
                        &server.issuer,
                        &server.scopes_supported,
                    );
                    step.verdict = if verdict == Verdict::Pass && !note.is_empty() {
                        Verdict::Warn
                    } else {
                        verdict
                    };
                    step.reason = format!("{reason}{note}");
                    return step;
                }
                Ok(r) => {
                    tried.push(format!("{url} answered {}", r.status));
                }
                Err(why) => tried.push(format!("{url} could not be fetched ({why})")),
            }
        }
        step.reason = format!(
            "No metadata: {}. The challenge names no resource_metadata, so clients look at the well-known URLs (RFC 9728 §3.1).",
            tried.join("; ")
        );
        step
    }

    /// Step 4: a resource of this realm has the server's URL, enabled, accepting the scopes the
    /// challenge asks for.
    async fn registered_step(
        &self,
        realm_id: &crate::ids::RealmId,
        resource: &ResourceUri,
        challenge: &check::Challenge,
    ) -> Result<CheckStep> {
        let found = self.cached_resource(realm_id, resource).await?;
        let (verdict, reason) = match found {
            None => (
                Verdict::Fail,
                format!(
                    "No resource of this realm has the URL {resource}: the realm issues no tokens for it. Register it (Protect your MCP server, or Resources)."
                ),
            ),
            Some(r) if !r.enabled => (
                Verdict::Fail,
                format!(
                    "Registered as {} ({}) but disabled: the realm issues no tokens for it until an admin enables it.",
                    r.display_name, r.slug
                ),
            ),
            Some(r) => {
                let missing: Vec<&str> = challenge
                    .scope
                    .as_deref()
                    .unwrap_or_default()
                    .split(' ')
                    .filter(|s| !s.is_empty() && *s != "offline_access")
                    .filter(|s| !r.scopes.iter().any(|x| x == *s))
                    .collect();
                if missing.is_empty() {
                    (
                        Verdict::Pass,
                        format!(
                            "Registered as {} ({}): its tokens name {resource} in aud.",
                            r.display_name, r.slug
                        ),
                    )
                } else {
                    (
                        Verdict::Warn,
                        format!(
                            "Registered as {} ({}), but it does not accept {}, which the challenge asks for: tokens will lack it.",
                            r.display_name,
                            r.slug,
                            missing.join(", ")
                        ),
                    )
                }
            }
        };
        Ok(CheckStep {
            id: "registered",
            title: "The server is a resource of this realm",
            verdict,
            reason,
            exchanges: Vec::new(),
        })
    }

    /// Step 5: a token shaped like this realm's, for this very server, but signed with a key
    /// made for the check and thrown away: the server must refuse it. (No token this realm
    /// signed ever leaves for a server a person typed in.)
    async fn forged_token_step(
        &self,
        target: &url::Url,
        resource: &ResourceUri,
        issuer: &str,
        challenge: &check::Challenge,
    ) -> CheckStep {
        let mut step = CheckStep {
            id: "forged_token",
            title: "A token this realm did not sign is refused",
            verdict: Verdict::Skipped,
            reason: String::new(),
            exchanges: Vec::new(),
        };
        let now = self.now();
        let claims = AccessTokenClaims {
            iss: issuer.to_owned(),
            sub: "portcullis-check".into(),
            aud: resource.as_str().to_owned(),
            client_id: "portcullis-check".into(),
            scope: challenge.scope.clone().unwrap_or_default(),
            iat: now,
            exp: now + 60,
            jti: format!("check_{}", new_kid()),
            agent: None,
            act: None,
            mcp_server: None,
            mcp_release: None,
            origin: TokenOrigin {
                client: "portcullis-check".into(),
                resource: "portcullis-check".into(),
                ..TokenOrigin::default()
            },
        };
        let token = generate(SigningAlg::ES256)
            .and_then(|k| Signer::from_pkcs8(&new_kid(), SigningAlg::ES256, &k.pkcs8))
            .and_then(|s| s.sign(ACCESS_TOKEN_TYP, &claims));
        let token = match token {
            Ok(t) => t,
            Err(why) => {
                step.reason = format!("No test token could be made: {why}.");
                return step;
            }
        };
        let probe = initialize_probe(target, Some(&token));
        let got = self.send(&probe).await;
        step.exchanges.push(exchange(&probe, &got));
        (step.verdict, step.reason) = match &got {
            Ok(r) => judge_forged(r),
            Err(why) => (Verdict::Warn, format!("No answer: {why}.")),
        };
        step
    }
}

fn exchange(probe: &Probe, got: &std::result::Result<ProbeResponse, String>) -> Exchange {
    Exchange {
        request: show_request(probe),
        response: show_response(got),
    }
}

/// Step 3: this realm as the authorization server, from its own metadata (no request needed).
fn authorization_server_step(server: &AuthorizationServer, metadata_ok: bool) -> CheckStep {
    let mut offers = vec!["the authorization code flow with PKCE (S256)".to_owned()];
    match &server.registration_endpoint {
        Some(e) => offers.push(format!("dynamic client registration at {e}")),
        None => offers
            .push("no dynamic client registration (clients are registered by an admin)".into()),
    }
    if server.metadata_documents {
        offers.push("Client ID Metadata Documents".into());
    }
    let offers = format!(
        "{} ({}) offers {}.",
        server.metadata_url,
        server.issuer,
        offers.join(", ")
    );
    CheckStep {
        id: "authorization_server",
        title: "This realm answers as the authorization server",
        verdict: if metadata_ok {
            Verdict::Pass
        } else {
            Verdict::Skipped
        },
        reason: if metadata_ok {
            format!("Clients that follow the metadata read {offers}")
        } else {
            format!(
                "Not judged: clients reach this realm only through metadata that names it. This realm's metadata at {offers}"
            )
        },
        exchanges: Vec::new(),
    }
}

/// A step that needs the server, which could not be reached.
fn not_run(id: &'static str, title: &'static str) -> CheckStep {
    CheckStep {
        id,
        title,
        verdict: Verdict::Skipped,
        reason: "Not run: the server could not be reached.".into(),
        exchanges: Vec::new(),
    }
}
