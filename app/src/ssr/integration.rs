//! "Protect your MCP server" and "Check an MCP server" as the console shows them.
use crate::types::integration::{
    ArtifactView, CheckStepView, McpCheckView, ProtectionView, RegisteredView,
};

/// View of what "Protect your MCP server" generated.
pub fn protection_view(p: &authz::integration::Protection) -> ProtectionView {
    ProtectionView {
        resource: p.resource.clone(),
        name: p.name.clone(),
        changes: p.changes.clone(),
        scopes: p.scopes.clone(),
        scope_notes: p.scope_notes.clone(),
        new_scopes: p.new_scopes.clone(),
        artifacts: p
            .artifacts
            .iter()
            .map(|a| ArtifactView {
                id: a.id.to_owned(),
                title: a.title.to_owned(),
                explanation: a.explanation.clone(),
                reference_label: a.reference.0.to_owned(),
                reference_url: a.reference.1.to_owned(),
                language: a.language.to_owned(),
                text: a.text.clone(),
            })
            .collect(),
        registered: p.registered.as_ref().map(registered_view),
        client_review: p.client_review.map(|r| (r.waiting, r.can_review)),
    }
}

/// A resource registered or submitted from the generator.
pub fn registered_view(r: &authz::integration::RegisteredResource) -> RegisteredView {
    RegisteredView {
        slug: r.slug.clone(),
        display_name: r.display_name.clone(),
        enabled: r.enabled,
        submitted_by: r.submitted_by.clone(),
        rejection: r.rejection.clone(),
    }
}

/// "Check an MCP server", as the console shows it.
pub fn check_view(c: &authz::integration::McpCheck) -> McpCheckView {
    use authz::integration::Verdict;
    McpCheckView {
        url: c.url.clone(),
        passed: c.passed(),
        steps: c
            .steps
            .iter()
            .map(|s| CheckStepView {
                id: s.id.to_owned(),
                title: s.title.to_owned(),
                verdict: match s.verdict {
                    Verdict::Pass => "pass",
                    Verdict::Warn => "warn",
                    Verdict::Fail => "fail",
                    Verdict::Skipped => "skipped",
                }
                .to_owned(),
                reason: s.reason.clone(),
                exchanges: s
                    .exchanges
                    .iter()
                    .map(|e| (e.request.clone(), e.response.clone()))
                    .collect(),
            })
            .collect(),
    }
}
