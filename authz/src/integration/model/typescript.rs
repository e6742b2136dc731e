//! The TypeScript server (official MCP SDK, express, jose).
use super::snippet::{Snippet, comment_text, listen_port, lit, lit_list};

/// The official TypeScript SDK version the TypeScript snippet is written and tested against.
pub const TS_SDK_VERSION: &str = "1.32.2";
/// The `jose` version the TypeScript snippet verifies tokens with.
pub const JOSE_VERSION: &str = "6.2.18";
/// The `express` version the TypeScript snippet serves with.
pub const EXPRESS_VERSION: &str = "5.2.1";

pub(super) fn typescript_server(s: &Snippet<'_>) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        challenge,
    } = s;
    let port = listen_port(resource);
    format!(
        r#"// server.mjs: an MCP server protected by {realm} (Portcullis).
import express from 'express';
import {{ McpServer }} from '@modelcontextprotocol/sdk/server/mcp.js';
import {{ StreamableHTTPServerTransport }} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {{ mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl }} from '@modelcontextprotocol/sdk/server/auth/router.js';
import {{ requireBearerAuth }} from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {{ metadataHandler }} from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import {{ InvalidTokenError }} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {{ createHash }} from 'node:crypto';
import {{ createRemoteJWKSet, jwtVerify }} from 'jose';

const ISSUER = {issuer};
const RESOURCE = new URL({resource});
const SCOPES = {scopes};
const CHALLENGE = {challenge};
const PORT = Number(process.env.PORT ?? {port});
// Opt-in: with the resource's introspection credentials (Portcullis: the resource's page,
// Introspection credentials) each token is also confirmed with the realm (RFC 7662), so a
// revoked token is refused at once, or within INTROSPECTION_CACHE_MS if it was used just
// before, instead of working until it expires. It costs at most one request to the realm per token per
// 30 s, and calls fail while the realm cannot be reached.
const INTROSPECTION_ID = process.env.INTROSPECTION_CLIENT_ID ?? '';
const INTROSPECTION_SECRET = process.env.INTROSPECTION_CLIENT_SECRET ?? '';
if (!INTROSPECTION_ID !== !INTROSPECTION_SECRET) {{
  // Half configured (a secret store failed?): refuse to start rather than skip the checks.
  throw new Error('Set both INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET, or neither.');
}}
const INTROSPECTION = INTROSPECTION_ID ? [INTROSPECTION_ID, INTROSPECTION_SECRET] : null;
const INTROSPECTION_CACHE_MS = 30_000;

const oauthMetadata = await (await fetch({metadata_url})).json();
const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri));

const app = express();
app.use(express.json());
// RFC 9728 metadata at /.well-known/oauth-protected-resource{{path}}, what MCP clients ask first,
app.use(mcpAuthMetadataRouter({{ oauthMetadata, resourceServerUrl: RESOURCE, scopesSupported: SCOPES, resourceName: {name} }}));
// and at the root well-known URL, all some clients ask.
app.use('/.well-known/oauth-protected-resource', metadataHandler({{ resource: RESOURCE.href, authorization_servers: [oauthMetadata.issuer], scopes_supported: SCOPES, resource_name: {name} }}));

// The realm's answers (RFC 7662), by token id: kept 30 s at most, never past the token's exp.
const answers = new Map();
async function stillActive(token, payload) {{
  const now = Date.now();
  const key = payload.jti ?? createHash('sha256').update(token).digest('hex');
  const known = answers.get(key);
  if (known && known.until > now) return known.active;
  const basic = Buffer.from(INTROSPECTION.map(encodeURIComponent).join(':')).toString('base64');
  const res = await fetch(oauthMetadata.introspection_endpoint, {{
    method: 'POST',
    headers: {{ authorization: `Basic ${{basic}}` }},
    body: new URLSearchParams({{ token, token_type_hint: 'access_token' }}),
    // A realm that hangs fails the call instead of holding every request open.
    signal: AbortSignal.timeout(10_000),
    // The credentials go to the introspection endpoint only, never where a redirect points.
    redirect: 'error',
  }});
  // The realm cannot say: the call fails (500) rather than let a revoked token through.
  if (!res.ok) throw new Error(`Failed to introspect the token: ${{res.status}}`);
  const active = (await res.json()).active === true;
  if (answers.size >= 10_000) for (const [k, a] of answers) if (a.until <= now) answers.delete(k);
  if (answers.size >= 10_000) answers.clear();
  answers.set(key, {{ active, until: Math.min(now + INTROSPECTION_CACHE_MS, payload.exp * 1000) }});
  return active;
}}

const verifier = {{
  async verifyAccessToken(token) {{
    let payload;
    try {{
      // Signature (the realm's keys), typ, iss, exp and aud: a token for another server fails here.
      ({{ payload }} = await jwtVerify(token, jwks, {{ issuer: ISSUER, audience: RESOURCE.href, typ: 'at+jwt' }}));
    }} catch (e) {{
      throw new InvalidTokenError(`Token rejected: ${{e.message}}`);
    }}
    if (INTROSPECTION && !(await stillActive(token, payload))) {{
      throw new InvalidTokenError('Token rejected: the realm says it is no longer active (revoked)');
    }}
    return {{
      token,
      clientId: String(payload.client_id),
      scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
      expiresAt: payload.exp,
      resource: RESOURCE,
      // act: who calls for the subject after a token exchange (RFC 8693, most recent first);
      // mcp_server / mcp_release: the registry entry and release that allowed the token.
      extra: {{
        sub: payload.sub,
        agent: payload.agent,
        act: payload.act,
        mcp_server: payload.mcp_server,
        mcp_release: payload.mcp_release,
      }},
    }};
  }},
}};
// A request without a token: the challenge clients discover everything from (RFC 9728 §5.1;
// no error code, RFC 6750 §3.1). A bad token: 401 with invalid_token; too few scopes: 403.
const challenge = (req, res, next) =>
  req.headers.authorization ? next() : res.set('WWW-Authenticate', CHALLENGE).status(401).end();
const auth = requireBearerAuth({{ verifier, requiredScopes: SCOPES, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(RESOURCE) }});

app.post(RESOURCE.pathname, challenge, auth, async (req, res) => {{
  const server = new McpServer({{ name: {name}, version: '1.0.0' }});
  server.registerTool('whoami', {{ description: 'Who the token is for' }}, async (extra) => ({{
    content: [{{ type: 'text', text: JSON.stringify({{ client_id: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes, ...extra.authInfo?.extra }}) }}],
  }}));
  const transport = new StreamableHTTPServerTransport({{ sessionIdGenerator: undefined }});
  res.on('close', () => {{ transport.close(); server.close(); }});
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}});

app.listen(PORT, () => console.log(`MCP server for ${{RESOURCE.href}} on port ${{PORT}}`));
"#,
        realm = comment_text(&server.realm),
        issuer = lit(&server.issuer),
        resource = lit(resource),
        scopes = lit_list(scopes),
        challenge = lit(challenge),
        metadata_url = lit(&server.metadata_url),
        name = lit(name),
    )
}
