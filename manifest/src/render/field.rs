//! The fields of a policy every renderer must consider, as warnings name them.

/// Every field of a policy a renderer must consider, as warnings name them.
///
/// The renderers destructure [`crate::Server`] without `..`, so a field added there fails to
/// compile until it is handled; this list is what the no-silent-drop test walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The server's id (its name in every harness).
    Id,
    /// A name for people.
    Title,
    /// A remote server's URL.
    Url,
    /// Streamable HTTP or SSE.
    UrlTransport,
    /// A package's name or image.
    PackageIdentifier,
    /// A package's exact version.
    PackageVersion,
    /// A command's program.
    CommandPath,
    /// A command's arguments.
    CommandArgs,
    /// A command's binary digest.
    CommandSha256,
    /// Its MCP Registry name and version.
    Registry,
    /// HTTP headers.
    Headers,
    /// Environment variables.
    Env,
    /// Only these tools.
    ToolsAllow,
    /// Never these tools.
    ToolsDeny,
    /// The auth mode.
    AuthMode,
    /// A pre-registered OAuth client id.
    AuthClientId,
    /// An organisation-hosted Client ID Metadata Document.
    AuthClientMetadataUrl,
    /// The server's authorization server.
    AuthIssuer,
    /// The identity provider issuing the ID-JAG.
    AuthIdentityIssuer,
    /// Scopes to ask for.
    AuthScopes,
    /// Rings that get it: chosen before rendering ([`crate::Policy::servers_for`]).
    Rings,
    /// Units that get it: chosen before rendering ([`crate::Policy::servers_for`]).
    Units,
    /// The policy's mode (allowlist or warn).
    Mode,
}

impl Field {
    /// Every field.
    pub const ALL: [Field; 23] = [
        Field::Id,
        Field::Title,
        Field::Url,
        Field::UrlTransport,
        Field::PackageIdentifier,
        Field::PackageVersion,
        Field::CommandPath,
        Field::CommandArgs,
        Field::CommandSha256,
        Field::Registry,
        Field::Headers,
        Field::Env,
        Field::ToolsAllow,
        Field::ToolsDeny,
        Field::AuthMode,
        Field::AuthClientId,
        Field::AuthClientMetadataUrl,
        Field::AuthIssuer,
        Field::AuthIdentityIssuer,
        Field::AuthScopes,
        Field::Rings,
        Field::Units,
        Field::Mode,
    ];

    /// Its name in warnings (and in validation findings).
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Title => "title",
            Field::Url => "url",
            Field::UrlTransport => "urlTransport",
            Field::PackageIdentifier => "package.identifier",
            Field::PackageVersion => "package.version",
            Field::CommandPath => "command.path",
            Field::CommandArgs => "command.args",
            Field::CommandSha256 => "command.sha256",
            Field::Registry => "registryName",
            Field::Headers => "headers",
            Field::Env => "env",
            Field::ToolsAllow => "tools.allow",
            Field::ToolsDeny => "tools.deny",
            Field::AuthMode => "auth.mode",
            Field::AuthClientId => "auth.clientId",
            Field::AuthClientMetadataUrl => "auth.clientMetadataUrl",
            Field::AuthIssuer => "auth.issuer",
            Field::AuthIdentityIssuer => "auth.identityIssuer",
            Field::AuthScopes => "auth.scopes",
            Field::Rings => "rings",
            Field::Units => "units",
            Field::Mode => "mode",
        }
    }

    /// Whether a warning's field (`headers.X-Key`, `command.args[2]`) is about this field.
    pub fn names(self, warning_field: &str) -> bool {
        let f = self.as_str();
        warning_field == f
            || warning_field
                .strip_prefix(f)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_name_their_sub_fields() {
        assert!(Field::Headers.names("headers.X-Key"));
        assert!(Field::CommandArgs.names("command.args[1]"));
        assert!(!Field::Url.names("urlTransport"));
        assert!(Field::Url.names("url"));
    }
}
