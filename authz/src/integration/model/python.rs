//! The Python server (official MCP SDK, uvicorn, PyJWT).
use super::snippet::{Snippet, comment_text, listen_port, lit, lit_list};

/// The official Python SDK (`mcp` on PyPI) version the Python snippet is written against.
pub const PYTHON_SDK_VERSION: &str = "2.3.0";
/// The `uvicorn` version the Python snippet serves with.
pub const UVICORN_VERSION: &str = "0.54.0";
/// The `PyJWT` version the Python snippet verifies tokens with.
pub const PYJWT_VERSION: &str = "2.15.1";

pub(super) fn python_server(s: &Snippet<'_>) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        challenge,
    } = s;
    let port = listen_port(resource);
    format!(
        r#"# -*- coding: utf-8 -*-
# server.py: an MCP server protected by {realm} (Portcullis).
import asyncio
import base64
import hashlib
import json
import os
import time
import urllib.request
from urllib.parse import quote_plus, urlencode, urlsplit

import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

ISSUER = {issuer}
RESOURCE = {resource}
SCOPES = {scopes}
CHALLENGE = {challenge}
PATH = urlsplit(RESOURCE).path
JWKS = jwt.PyJWKClient({jwks_uri}, cache_keys=True)
METADATA = "/.well-known/oauth-protected-resource"
# Opt-in: with the resource's introspection credentials (Portcullis: the resource's page,
# Introspection credentials) each token is also confirmed with the realm (RFC 7662), so a
# revoked token is refused at once, or within INTROSPECTION_CACHE_SECONDS if it was used just
# before, instead of working until it expires. It costs at most one request to the realm per token per
# 30 s, and calls fail while the realm cannot be reached.
INTROSPECTION_ENDPOINT = {introspection_endpoint}
INTROSPECTION_ID = os.environ.get("INTROSPECTION_CLIENT_ID", "")
INTROSPECTION_SECRET = os.environ.get("INTROSPECTION_CLIENT_SECRET", "")
if bool(INTROSPECTION_ID) != bool(INTROSPECTION_SECRET):
    # Half configured (a secret store failed?): refuse to start rather than skip the checks.
    raise SystemExit("Set both INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET, or neither.")
INTROSPECTION = (INTROSPECTION_ID, INTROSPECTION_SECRET) if INTROSPECTION_ID else None
INTROSPECTION_CACHE_SECONDS = 30
# The realm's answers, by token id: kept 30 s at most, never past the token's exp.
ANSWERS: dict[str, tuple[bool, float]] = {{}}


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The credentials go to the introspection endpoint only: a redirect is an error."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(_NoRedirects)


def introspect(token: str) -> bool:
    """Asks the realm whether the token is active. The realm cannot say: an error, and the call
    fails rather than let a revoked token through."""
    basic = base64.b64encode(":".join(quote_plus(s) for s in INTROSPECTION).encode()).decode()
    request = urllib.request.Request(
        INTROSPECTION_ENDPOINT,
        data=urlencode({{"token": token, "token_type_hint": "access_token"}}).encode(),
        headers={{"Authorization": f"Basic {{basic}}"}},
    )
    with OPENER.open(request, timeout=10) as response:
        return json.load(response).get("active") is True


async def still_active(token: str, claims: dict) -> bool:
    now = time.time()
    key = claims.get("jti") or hashlib.sha256(token.encode()).hexdigest()
    known = ANSWERS.get(key)
    if known and known[1] > now:
        return known[0]
    active = await asyncio.to_thread(introspect, token)
    if len(ANSWERS) >= 10_000:
        for jti in [j for j, (_, until) in ANSWERS.items() if until <= now]:
            del ANSWERS[jti]
    if len(ANSWERS) >= 10_000:
        ANSWERS.clear()
    ANSWERS[key] = (active, min(now + INTROSPECTION_CACHE_SECONDS, claims["exp"]))
    return active


class RealmTokenVerifier(TokenVerifier):
    """Checks signature (the realm's keys), typ, iss, exp and aud: a token for another server fails."""

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            if jwt.get_unverified_header(token).get("typ") != "at+jwt":
                return None
            key = JWKS.get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token,
                key,
                algorithms=["ES256", "RS256", "EdDSA"],
                audience=RESOURCE,
                issuer=ISSUER,
                options={{"require": ["exp", "iss", "aud"]}},
            )
        except jwt.PyJWTError:
            return None
        if INTROSPECTION and not await still_active(token, claims):
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=claims.get("exp"),
            resource=RESOURCE,
            subject=claims.get("sub"),
            # Also carries "act" (who calls for the subject after a token exchange, RFC 8693)
            # and "mcp_server" / "mcp_release" (the registry entry that allowed the token).
            claims=claims,
        )


mcp = MCPServer(
    {name},
    token_verifier=RealmTokenVerifier(),
    # Serves the RFC 9728 metadata and answers 401 with WWW-Authenticate: Bearer resource_metadata="…".
    auth=AuthSettings(
        issuer_url=ISSUER,
        resource_server_url=RESOURCE,
        required_scopes=SCOPES,
        validate_token_resource=True,
    ),
)


@mcp.tool()
def whoami() -> str:
    """Who the token is for."""
    t = get_access_token()
    return f"client {{t.client_id}} with scopes {{' '.join(t.scopes)}}" if t else "nobody"


class Challenge:
    """A request without a token gets the challenge clients discover everything from (RFC 9728
    section 5.1; no error code, RFC 6750 section 3.1). A bad token: 401 with invalid_token. The
    root well-known URL answers with the metadata as well."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if (scope["type"] == "http" and scope["path"] == PATH
                and b"authorization" not in dict(scope["headers"])):
            await send({{"type": "http.response.start", "status": 401,
                        "headers": [(b"www-authenticate", CHALLENGE.encode())]}})
            await send({{"type": "http.response.body", "body": b""}})
            return
        if scope["type"] == "http" and scope["path"] == METADATA and PATH != "/":
            # Some clients ask only the root well-known URL: the same document there.
            scope = dict(scope, path=METADATA + PATH)
        await self.app(scope, receive, send)


if __name__ == "__main__":
    app = mcp.streamable_http_app(streamable_http_path=PATH)
    print(f"MCP server for {{RESOURCE}}", flush=True)
    uvicorn.run(Challenge(app), host="127.0.0.1", port=int(os.environ.get("PORT", {port})))
"#,
        realm = comment_text(&server.realm),
        issuer = lit(&server.issuer),
        resource = lit(resource),
        scopes = lit_list(scopes),
        jwks_uri = lit(&server.jwks_uri),
        introspection_endpoint = lit(&server.introspection_endpoint),
        challenge = lit(challenge),
        name = lit(name),
    )
}
