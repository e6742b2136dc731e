//! Access grant types.
use crate::clients::ClientId;
use crate::clock::UnixTime;
use crate::ids::{ClientRowId, ResourceId};
use crate::resources::Resource;
use crate::scope::ScopeSet;

/// A client's access to one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The client (row id).
    pub client: ClientRowId,
    /// The resource (row id).
    pub resource: ResourceId,
    /// Scopes its tokens for the resource may carry (a subset of the resource's when granted).
    pub scopes: ScopeSet,
    /// When first granted.
    pub created_at: UnixTime,
    /// When the scopes last changed.
    pub updated_at: UnixTime,
    /// When the client last got a token for the resource (as last written; the token path
    /// notes uses in memory and writes them every few seconds).
    pub last_used_at: Option<UnixTime>,
}

/// A grant as a resource lists it: with the client it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantedClient {
    /// The grant, its scopes narrowed to those the resource still accepts (what tokens get).
    pub grant: Grant,
    /// Granted scopes the resource no longer accepts: no token carries them while they are
    /// not accepted, and they count again if the resource accepts them again.
    pub lapsed: ScopeSet,
    /// The client's `client_id`.
    pub client_id: ClientId,
    /// The client's name.
    pub name: String,
    /// Whether the client is enabled.
    pub enabled: bool,
    /// The agent it acts for (name and roles): its tokens carry only the granted scopes that
    /// are also the agent's roles.
    pub agent: Option<(String, ScopeSet)>,
}

impl GrantedClient {
    /// The scopes its tokens for the resource get: granted ∩ accepted (already), ∩ the agent's
    /// roles when it acts for one.
    pub fn token_scopes(&self) -> ScopeSet {
        match &self.agent {
            Some((_, roles)) => self.grant.scopes.intersection(roles),
            None => self.grant.scopes.clone(),
        }
    }
}

/// A resource of the realm as a client's page lists it: with the client's grant, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceAccess {
    /// The resource.
    pub resource: Resource,
    /// The client's grant for it.
    pub grant: Option<Grant>,
}

/// A grant with the resource it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantedResource {
    /// The grant.
    pub grant: Grant,
    /// The resource.
    pub resource: Resource,
}

impl GrantedResource {
    /// The scopes a token for the resource can carry now: the grant's that the resource still
    /// accepts.
    pub fn effective_scopes(&self) -> ScopeSet {
        self.grant.scopes.intersection(&self.resource.scopes)
    }
}

/// Checks the scopes of a grant against the resource's: `None` grants every scope the resource
/// accepts; otherwise at least one, each accepted by the resource.
///
/// # Errors
/// A message fit for the user.
pub fn grant_scopes(requested: Option<&str>, resource: &Resource) -> Result<ScopeSet, String> {
    let Some(text) = requested else {
        return Ok(resource.scopes.clone());
    };
    let scopes = ScopeSet::parse(text)?;
    if scopes.is_empty() {
        return Err("Pick at least one scope: a grant without scopes would give no token.".into());
    }
    let unknown: Vec<&str> = scopes
        .iter()
        .filter(|s| !resource.scopes.contains(s))
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "{} does not accept {}; it accepts {}.",
            resource.display_name,
            unknown.join(", "),
            resource.scopes.iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(scopes: &str) -> Resource {
        Resource {
            id: ResourceId::from_stored("res_1"),
            realm_id: crate::ids::RealmId::from_stored("rlm_1"),
            slug: "pay".into(),
            display_name: "Payments".into(),
            uri: crate::resources::ResourceUri::parse("https://pay.example.com/mcp", false)
                .expect("uri"),
            scopes: ScopeSet::parse(scopes).expect("scopes"),
            token_ttl_secs: None,
            signing_alg: None,
            enabled: true,
            policy: crate::resources::AccessPolicy::default(),
            submitted_by: None,
            rejection: None,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn grant_scopes_are_a_non_empty_subset_of_the_resource() {
        let r = resource("tools:call tools:list");
        assert_eq!(
            grant_scopes(None, &r),
            Ok(r.scopes.clone()),
            "all by default"
        );
        assert_eq!(
            grant_scopes(Some("tools:list"), &r).map(|s| s.to_string()),
            Ok("tools:list".into())
        );
        let empty = grant_scopes(Some("  "), &r).expect_err("empty");
        assert!(empty.contains("at least one"), "{empty}");
        let unknown = grant_scopes(Some("tools:list admin"), &r).expect_err("unknown");
        assert!(unknown.contains("does not accept admin"), "{unknown}");
        assert!(grant_scopes(Some("bad\"scope"), &r).is_err());
    }

    #[test]
    fn effective_scopes_follow_the_resource() {
        let g = GrantedResource {
            grant: Grant {
                client: ClientRowId::from_stored("cli_1"),
                resource: ResourceId::from_stored("res_1"),
                scopes: ScopeSet::parse("tools:call tools:list").expect("scopes"),
                created_at: 0,
                updated_at: 0,
                last_used_at: None,
            },
            resource: resource("tools:list"),
        };
        assert_eq!(g.effective_scopes().to_string(), "tools:list");
    }
}
