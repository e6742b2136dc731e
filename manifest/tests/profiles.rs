//! Provider profiles: a profile fills in the provider's hosted server and its OAuth, and only
//! its tools can ever be allowed; Gmail's is a Developer Preview, opt-in by name.
use portcullis_manifest::server::AuthInput;
use portcullis_manifest::{Auth, Profile, Server, ServerInput, Transport};

fn with_profile(id: &str, profile: &str) -> ServerInput {
    ServerInput {
        id: id.into(),
        profile: Some(profile.into()),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

#[test]
fn notion_is_read_first_with_the_providers_server_and_oauth() {
    let (server, f) = Server::check(&with_profile("notion", "notion"));
    assert!(f.errors.is_empty(), "{f:?}");
    let server = server.expect("accepted");
    assert_eq!(server.profile, Some(Profile::Notion));
    assert_eq!(
        server.transport,
        Transport::Remote {
            url: "https://mcp.notion.com/mcp".into(),
            sse: false
        }
    );
    assert!(matches!(server.auth, Auth::OAuth { .. }));
    assert_eq!(
        server.tools.allow,
        ["notion-search", "notion-fetch", "notion-get-async-task"]
    );
    for write in [
        "notion-create-pages",
        "notion-update-page",
        "notion-move-pages",
    ] {
        assert!(!server.tools.allows(write), "{write}");
    }
    // Written back, it reads the same (what releases store and laptops render).
    let (again, f) = Server::check(&server.to_input());
    assert!(f.errors.is_empty(), "{f:?}");
    assert_eq!(again, Some(server));
}

#[test]
fn a_profile_never_lets_a_tool_outside_it_through() {
    let mut input = with_profile("notion", "notion");
    input.tools.allow = vec!["notion-search".into(), "notion-create-pages".into()];
    let (server, f) = Server::check(&input);
    assert!(server.is_none());
    let message = f.error_on("tools.allow").expect("refused on tools.allow");
    assert!(message.contains("notion-create-pages"), "{message}");
    // Narrowing is fine, and a deny still wins.
    input.tools.allow = vec!["notion-search".into(), "notion-fetch".into()];
    input.tools.deny = vec!["notion-fetch".into()];
    let (server, f) = Server::check(&input);
    assert!(f.errors.is_empty(), "{f:?}");
    let server = server.expect("accepted");
    assert!(server.tools.allows("notion-search"));
    assert!(!server.tools.allows("notion-fetch"));
    assert!(!server.tools.allows("notion-get-async-task"));
}

#[test]
fn gmail_is_an_opt_in_preview_that_searches_reads_and_drafts_but_never_sends() {
    let (server, f) = Server::check(&with_profile("mail", "gmail"));
    assert!(server.is_none());
    assert!(
        f.error_on("profile")
            .is_some_and(|m| m.contains("gmail-preview")),
        "{f:?}"
    );
    let mut gmail = with_profile("mail", "gmail-preview");
    let (_, f) = Server::check(&gmail);
    assert!(
        f.warnings
            .iter()
            .any(|w| w.field == "auth.clientId" && w.message.contains("Google")),
        "Google takes registered clients only: {f:?}"
    );
    // The entry names its client id; Google's authorization server and the Gmail scopes come
    // from the profile.
    gmail.auth = Some(AuthInput {
        client_id: Some("123.apps.googleusercontent.com".into()),
        ..Default::default()
    });
    let (server, f) = Server::check(&gmail);
    assert!(f.errors.is_empty(), "{f:?}");
    assert!(
        f.warnings
            .iter()
            .any(|w| w.field == "profile" && w.message.contains("Developer Preview")),
        "labelled preview: {f:?}"
    );
    let server = server.expect("accepted");
    assert!(Profile::GmailPreview.preview());
    assert_eq!(
        server.tools.allow,
        [
            "search_threads",
            "get_thread",
            "get_message",
            "create_draft"
        ]
    );
    for never in [
        "send_message",
        "send_draft",
        "delete_thread",
        "trash_message",
    ] {
        assert!(!server.tools.allows(never), "{never}");
    }
    let Auth::OAuth { issuer, scopes, .. } = &server.auth else {
        panic!("oauth: {:?}", server.auth)
    };
    assert_eq!(issuer.as_deref(), Some("https://accounts.google.com"));
    assert_eq!(scopes.len(), 2, "{scopes:?}");
    assert!(
        scopes
            .iter()
            .all(|s| s.ends_with("gmail.readonly") || s.ends_with("gmail.compose"))
    );
    // Written back and checked again, the same server.
    let (again, _) = Server::check(&server.to_input());
    assert_eq!(again.as_ref(), Some(&server));
}

#[test]
fn what_the_entry_says_wins_over_the_profiles_defaults_but_not_its_tools() {
    // A test double of the provider (another URL, no authentication) keeps the tool rules.
    let mut input = with_profile("notion", "notion");
    input.url = Some("https://notion-double.example.com/mcp".into());
    input.auth = Some(AuthInput {
        mode: "none".into(),
        ..Default::default()
    });
    let (server, f) = Server::check(&input);
    assert!(f.errors.is_empty(), "{f:?}");
    assert!(f.warnings.iter().any(|w| w.field == "url"), "{f:?}");
    let server = server.expect("accepted");
    assert_eq!(server.auth, Auth::None);
    assert_eq!(server.tools.allow.len(), 3);
    // Written back, the entry still says so (the profile's OAuth does not come back).
    let (again, _) = Server::check(&server.to_input());
    assert_eq!(again, Some(server));
    // A profile is for a hosted server, and must be one of the known ones.
    let mut local = with_profile("notion", "notion");
    local.command = Some(portcullis_manifest::server::CommandInput {
        path: "/usr/bin/notion-mcp".into(),
        ..Default::default()
    });
    assert!(Server::check(&local).1.error_on("profile").is_some());
    assert!(
        Server::check(&with_profile("x", "slack"))
            .1
            .error_on("profile")
            .is_some_and(|m| m.contains("notion, gmail-preview"))
    );
}

#[test]
fn gmail_asks_for_offline_access_and_notion_for_nothing_more() {
    use portcullis_manifest::Profile;
    let gmail = Profile::GmailPreview.authorization_params();
    assert!(gmail.contains(&("access_type", "offline")), "{gmail:?}");
    assert!(gmail.contains(&("prompt", "consent")), "{gmail:?}");
    assert!(Profile::Notion.authorization_params().is_empty());
}

#[test]
fn a_profile_at_another_url_keeps_its_tool_rules_but_never_the_providers_sign_in() {
    // Google's tokens must never be minted for a server that is not Google's.
    let mut input = with_profile("mail", "gmail-preview");
    input.url = Some("https://mail-proxy.example.com/mcp".into());
    input.auth = Some(AuthInput {
        mode: "oauth".into(),
        client_id: Some("123.apps.googleusercontent.com".into()),
        ..Default::default()
    });
    let (server, f) = Server::check(&input);
    assert!(f.warnings.iter().any(|w| w.field == "url"), "{f:?}");
    let server = server.expect("accepted");
    let Auth::OAuth { issuer, scopes, .. } = &server.auth else {
        panic!("oauth: {:?}", server.auth)
    };
    assert_eq!(issuer, &None, "no Google issuer for another host");
    assert!(scopes.is_empty(), "{scopes:?}");
    assert_eq!(server.tools.allow.len(), 4, "the tool rules still apply");
}
