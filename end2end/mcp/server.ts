// A small MCP server protected by Portcullis, built only from the official TypeScript SDK
// (@modelcontextprotocol/sdk): RFC 9728 metadata, the 401 challenge, and a token verifier that
// checks the signature (the realm's JWKS), `typ`, `iss`, `exp` and `aud` == this server. Its one
// tool answers with the caller's identity, so a test sees who the token is for.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface RunningMcpServer {
  url: string;
  close(): Promise<void>;
}

/** Starts the server on a free loopback port; `issuer` is the Portcullis realm it trusts.
 * `publicUrl`: the URL it is known by (its resource identifier and tokens' audience), as for a
 * server behind a TLS-terminating proxy; by default the loopback URL it listens on. */
export async function startMcpServer(issuer: string, scopes: string[], publicUrl?: string, register?: (server: McpServer) => void): Promise<RunningMcpServer & { local: string }> {
  const app = express();
  app.use(express.json());
  const listener = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (listener.address() as AddressInfo).port;
  const local = `http://127.0.0.1:${port}/mcp`;
  const url = publicUrl ?? local;
  const asMetadata = await (await fetch(`${issuer.replace('/realms/', '/.well-known/oauth-authorization-server/realms/')}`)).json();
  const jwks = createRemoteJWKSet(new URL(asMetadata.jwks_uri));
  app.use(mcpAuthMetadataRouter({ oauthMetadata: asMetadata, resourceServerUrl: new URL(url), scopesSupported: scopes, resourceName: 'SDK test server' }));
  const verifier = {
    async verifyAccessToken(token: string) {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: url, typ: 'at+jwt' });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
          expiresAt: payload.exp,
          resource: new URL(url),
          extra: { sub: payload.sub },
        };
      } catch (e) {
        throw new InvalidTokenError(`Token rejected: ${(e as Error).message}`);
      }
    },
  };
  const auth = requireBearerAuth({ verifier, requiredScopes: [], resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)) });
  app.post('/mcp', auth, async (req, res) => {
    const server = new McpServer({ name: 'portcullis-sdk-test', version: '1.0.0' });
    if (register) {
      register(server);
    } else {
      server.registerTool('whoami', { description: 'Who the token is for' }, async (extra) => ({
        content: [{ type: 'text', text: JSON.stringify({ sub: extra.authInfo?.extra?.sub, client_id: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes }) }],
      }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return {
    url,
    local,
    close: () => new Promise((resolve) => listener.close(() => resolve())),
  };
}
