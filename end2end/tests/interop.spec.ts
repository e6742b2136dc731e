// Interop with an OAuth 2 client library nobody here wrote (panva's oauth4webapi): RFC 8414
// discovery at both well-known paths, client_credentials with a resource indicator, RFC 9068
// access-token validation as a resource server does it, introspection and revocation.
import { test, expect } from '@playwright/test';
import * as oauth from 'oauth4webapi';
import { ADMIN, createClient, grantAccess, login, registerResource } from './helpers';

test('oauth4webapi discovers the realm, gets an audience-bound token, validates, introspects and revokes it', async ({ page, baseURL }) => {
  const suffix = Date.now().toString(36);
  const audience = `https://files-${suffix}.example.com/mcp`;
  await login(page, ADMIN);
  await registerResource(page, { id: `files-${suffix}`, name: 'Files', uri: audience, scopes: 'files:read' });
  const secret = await createClient(page, { clientId: `interop-${suffix}`, name: 'Interop bot', scope: 'files:read' });
  await grantAccess(page, `interop-${suffix}`, 'Files');

  const insecure = { [oauth.allowInsecureRequests]: true }; // the test server speaks http on loopback
  const issuer = new URL(`${baseURL}/realms/default`);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const oidc = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
  expect(oidc).toEqual(as);
  expect(as.token_endpoint).toBe(`${issuer}/token`);

  const client: oauth.Client = { client_id: `interop-${suffix}` };
  const auth = oauth.ClientSecretBasic(secret);
  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'files:read', resource: audience }, insecure);
  const tokens = await oauth.processClientCredentialsResponse(as, client, response);
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.scope).toBe('files:read');

  // RFC 9068 validation, as the MCP server at `audience` would do it; another server refuses it.
  const call = () => new Request(audience, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  const claims = await oauth.validateJwtAccessToken(as, call(), audience, insecure);
  expect(claims.client_id).toBe(`interop-${suffix}`);
  expect(claims.aud).toBe(audience);
  await expect(oauth.validateJwtAccessToken(as, call(), 'https://mail.example.com/mcp', insecure)).rejects.toThrow();

  const active = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure));
  expect(active.active).toBe(true);
  expect(active.aud).toBe(audience);
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure));
  const revoked = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure));
  expect(revoked.active).toBe(false);

  // A wrong secret: 401 with a Basic challenge, which the library surfaces as such.
  const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic('wrong'), { resource: audience }, insecure);
  const err = await oauth.processClientCredentialsResponse(as, client, bad).catch((e) => e);
  expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  expect(err.status).toBe(401);
  expect(err.cause[0].scheme).toBe('basic');
});
