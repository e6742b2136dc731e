import { test, expect, Page, APIRequestContext, request } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { ADMIN, DEVELOPER, check, hydrated, login } from './helpers';

// Every console screen, filled with long realistic data, at a phone's and a laptop's width in
// light and dark: no sideways scrolling of the page, no serious or critical accessibility
// violation (axe-core), and a screenshot of each in end2end/screenshots (a CI artifact).

const suffix = Date.now().toString(36);
const long = (s: string, n: number) => (s + '-').repeat(Math.ceil(n / (s.length + 1))).slice(0, n).replace(/-$/, 'x');
const resource = `billing-ledger-${suffix}`;
const client = `${long('reconciliation-worker', 90)}-${suffix}`;
const agent = `${long('nightly-reconciliation', 50)}-${suffix}`.slice(0, 63);
const resourceUri = `https://${long('billing-ledger', 60)}.internal.example-corporation.com/${long('mcp/v2/tenants/eu-west-1', 120)}`;
const submittedName = long('Treasury cash positioning MCP server submitted by the platform team', 100);

/** Calls a console server function as the signed-in admin. */
async function call(api: APIRequestContext, baseURL: string, fn: string, form: Record<string, string>) {
  const res = await api.post(`/api/${fn}`, { form, headers: { origin: baseURL } });
  expect(res.ok(), `${fn}: ${await res.text()}`).toBeTruthy();
  return res.json();
}

let person = '';
let submitted = '';
let user = '';

async function seed(page: Page, baseURL: string) {
  const api = page.request;
  await call(api, baseURL, 'resources/create', {
    slug: resource,
    display_name: long('Billing ledger MCP server for the finance operations team', 100),
    uri: resourceUri,
    scopes: 'ledger:read ledger:write invoices:read invoices:approve payments:initiate payments:refund reports:export',
    token_ttl_secs: '',
    signing_alg: '',
  });
  await call(api, baseURL, 'clients/create', {
    client_id: client,
    name: long('Reconciliation worker for the nightly ledger close', 100),
    auth_method: 'client_secret_basic',
    scope: 'ledger:read invoices:read reports:export',
    contacts: `${long('finance-platform-oncall', 60)}@example-corporation.com`,
    jwks: '',
  });
  await call(api, baseURL, 'access/grant', { client_id: client, resource, scopes: 'ledger:read invoices:read reports:export' });
  for (let i = 0; i < 25; i++) {
    await call(api, baseURL, 'clients/create', {
      client_id: `bulk-${suffix}-${i}`, name: `Bulk client ${i}`, auth_method: 'client_secret_basic', scope: '', contacts: '', jwks: '',
    });
  }
  await call(api, baseURL, 'agents/create', {
    name: agent,
    owner: `${long('finance-platform-oncall', 60)}@example-corporation.com`,
    description: long('Closes the books every night and files the reconciliation report', 400),
    roles: 'mcp:tools ledger:read invoices:read reports:export',
    expires_at: '2099-06-30T12:00',
  });
  await call(api, baseURL, 'agents/bind', { client_id: client, agent });
  // Identity providers trusted for ID-JAGs: one by JWKS URL for many clients, one with pasted keys.
  await call(api, baseURL, 'identity-providers/create', {
    issuer: `https://${long('login', 60)}.example-corporation.com/${long('oauth2/aus4k2', 120)}`,
    display_name: long('Example Corporation workforce single sign-on', 100),
    jwks_uri: `https://${long('login', 60)}.example-corporation.com/${long('oauth2/aus4k2', 120)}/v1/keys`,
    jwks: '',
    algorithms: 'ES256 RS256 EdDSA',
    clients: [client, ...Array.from({ length: 12 }, (_, i) => `bulk-${suffix}-${i}`)].join(' '),
    create_people: 'on',
    link_by_email: 'on',
  });
  await call(api, baseURL, 'identity-providers/create', {
    issuer: `https://idp-${suffix}.example.com`,
    display_name: '',
    jwks_uri: '',
    jwks: JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', kid: 'k1', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }] }),
    algorithms: '',
    clients: `bulk-${suffix}-0`,
  });
  // Authorization servers that trust this realm's ID-JAGs: one with many resources and clients.
  await call(api, baseURL, 'trusting-servers/create', {
    issuer: `https://${long('auth', 60)}.example-partner.com/${long('oauth2/aus9x', 120)}`,
    display_name: long('Example Partner ticketing and knowledge base authorization server', 100),
    resources: Array.from({ length: 8 }, (_, i) => `https://${long('mcp', 40)}-${i}.example-partner.com/${long('servers/tickets', 80)}/mcp`).join('\n'),
    scopes: 'tickets:read tickets:write knowledge:read knowledge:search comments:write attachments:read',
    clients: [client, ...Array.from({ length: 10 }, (_, i) => `bulk-${suffix}-${i}`)].map((c, i) => `${c} -> ${long(`0oa8f5j3xYpartner${i}`, 60)}`).join('\n'),
  });
  // Console sign-in providers: a confidential client with many groups, and a public client.
  await call(api, baseURL, 'sso/create', {
    display_name: long('Example Corporation workforce identity', 100),
    button_text: long('Sign in with your Example Corporation account', 100),
    issuer: `https://${long('login', 60)}.example-corporation.com/${long('oauth2/aus4k2', 120)}`,
    client_id: long('0oa8f3kd93jfk29dkeo2', 200),
    client_secret: 'a-console-client-secret-of-the-corporation',
    scopes: 'openid email profile groups offline_access',
    groups_claim: 'groups',
    admin_groups: Array.from({ length: 6 }, (_, i) => `${long('platform-administrators', 60)}-${i}`).join('\n'),
    reviewer_groups: 'security-operations',
    developer_groups: Array.from({ length: 20 }, (_, i) => `engineering-team-${i}`).join('\n'),
  });
  await call(api, baseURL, 'sso/create', {
    display_name: `Keycloak ${suffix}`,
    issuer: `https://keycloak-${suffix}.example.com/realms/staff`,
    client_id: 'portcullis',
    developer_groups: '*',
  });
  // Keys in every state: retired (still published), active, next.
  await call(api, baseURL, 'keys/rotate', {});
  await call(api, baseURL, 'keys/rotate', {});
  await call(api, baseURL, 'realms/create', {
    name: `finance-${suffix}`,
    display_name: long('Finance operations production realm', 100),
  });
  // The finance realm's sign-in providers for its people (kept out of the default realm, whose
  // sign-in page other specs use): a long one with a long mapping, and a public client.
  await call(api, baseURL, 'session/realm', { name: `finance-${suffix}` });
  await call(api, baseURL, 'realm-sign-in/create', {
    display_name: long('Example Corporation workforce directory', 100),
    button_text: long('Sign in with your Example Corporation account', 100),
    issuer: `https://${long('login', 60)}.example-corporation.com/${long('oauth2/aus4k2', 120)}`,
    client_id: long('0oa8f3kd93jfk29dkeo2', 200),
    client_secret: 'a-people-client-secret-of-the-corporation',
    scopes: 'openid email profile groups',
    group_mapping: Array.from({ length: 30 }, (_, i) => `${long('Finance Operations Treasury Approvers', 120)} ${i} -> role:${long('finance-treasury-approver', 60)}-${i}`).join('\n'),
  });
  await call(api, baseURL, 'realm-sign-in/create', {
    display_name: `Keycloak ${suffix}`,
    issuer: `https://keycloak-${suffix}.example.com/realms/staff`,
    client_id: 'portcullis-people',
  });
  await call(api, baseURL, 'session/realm', { name: 'default' });
  const p = await call(api, baseURL, 'people/create', {
    email: `${long('maximilian.alexander', 50)}@subsidiary.example-corporation.com`,
    display_name: long('Maximilian Alexander von Habsburg-Lothringen', 100),
    roles: 'finance-operations treasury-approvers',
    password: 'a-long-enough-password',
    confirm: 'a-long-enough-password',
  });
  person = p.id;
  // A console user with a long name, waiting to set their password.
  const userEmail = `${long('security.reviewer', 50)}-${suffix}@example-corporation.com`;
  await call(api, baseURL, 'users/create', {
    email: userEmail,
    display_name: long('Security reviewer for the finance operations realms', 100),
    role: 'security_reviewer',
  });
  user = (await call(api, baseURL, 'users/list', { query: userEmail, after: '', before: '' })).items[0].id;
  // A public client an admin registered, for the sign-in and consent pages.
  await call(api, baseURL, 'clients/create', {
    client_id: `desktop-${suffix}`,
    name: long('Finance desktop assistant for the operations team', 100),
    auth_method: 'none',
    scope: '',
    contacts: '',
    jwks: '',
    redirect_uris: 'http://127.0.0.1:53682/callback',
  });
  // A client waiting for review, as an MCP client registers itself.
  const reg = await api.post('/realms/default/connect/register', {
    data: {
      client_name: long('Claude Code for the finance operations team', 100),
      redirect_uris: [`http://localhost:54545/${long('callback', 80)}`, `https://${long('vscode', 40)}.example-corporation.com/redirect`],
      token_endpoint_auth_method: 'none',
      software_id: long('claude-code', 60),
      software_version: '2.1.0',
    },
  });
  expect(reg.status()).toBe(201);
  // A developer's submission, waiting for an admin (Resources shows who submitted it).
  const dev = await request.newContext({ baseURL });
  const signIn = await dev.post('/login', { form: { email: DEVELOPER.email, password: DEVELOPER.password }, headers: { origin: baseURL }, maxRedirects: 0 });
  expect(signIn.status()).toBe(303);
  submitted = (await call(dev, baseURL, 'integration/register', {
    server_url: `https://${long('treasury-cash-positioning', 60)}.internal.example-corporation.com/${long('mcp/v3', 100)}`,
    resource_name: submittedName,
    scopes: 'treasury:read treasury:forecast',
  })).slug;
  // A second one an admin rejected, with a long reason: the developer's Overview says so.
  const rejected = (await call(dev, baseURL, 'integration/register', {
    server_url: `https://${long('payroll-exports', 60)}.internal.example-corporation.com/mcp`,
    resource_name: long('Payroll exports MCP server for the people operations team', 100),
    scopes: 'payroll:read',
  })).slug;
  await call(api, baseURL, 'resources/reject', {
    slug: rejected,
    reason: long('Payroll data must go through the approved HR gateway; resubmit it behind that gateway with read-only scopes', 400),
  });
  await dev.dispose();
}

const SCREENS: [string, string][] = [
  ['overview', '/'],
  ['resources', '/resources'],
  ['resource', `/resources/${resource}`],
  ['resources-waiting', '/resources?waiting=1'],
  ['clients', '/clients'],
  ['client', `/clients/${client}`],
  ['agents', '/agents'],
  ['agent', `/agents/${agent}`],
  ['keys', '/keys'],
  ['identity-providers', '/identity-providers'],
  ['trusting-servers', '/trusting-servers'],
  ['settings', '/settings'],
  ['realms', '/realms'],
  ['realm', `/realms/finance-${suffix}`],
  ['users', '/users'],
  ['single-sign-on', '/single-sign-on'],
  ['user', '/users/USER'],
  ['audit', '/audit'],
  ['account', '/account'],
  ['people', '/people'],
  ['person', '/people/PERSON'],
  ['review', '/review'],
  ['review-approved', '/review?state=approved'],
  ['mcp', '/integration'],
  ['protect', '/integration/protect'],
  ['check', '/integration/check'],
  ['drift', '/registry/drift'],
  ['not-found', '/no-such-page'],
];

test.describe.configure({ mode: 'serial' });

test('every screen holds long data at 390 and 1280 px, light and dark, without sideways scroll or serious accessibility problems', async ({ page, baseURL }) => {
  // About 60 screens, each at two widths and in two themes with an accessibility scan: several
  // minutes on a debug build.
  test.setTimeout(600_000);
  await login(page, ADMIN);
  await seed(page, baseURL!);
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      for (const [name, screen] of SCREENS) {
        const path = screen.replace('PERSON', person).replace('USER', user);
        await page.goto(path);
        await hydrated(page);
        await page.waitForLoadState('networkidle');
        problems.push(...await check(page, `${name}-${width}-${scheme}`));
      }
    }
  }
  // The Integration screens with their results: generated blocks for a long URL (registered
  // already) and a check's steps with what was sent and received.
  const results: [string, (p: Page) => Promise<void>][] = [
    ['protect-generated', async (p) => {
      await p.goto('/integration/protect');
      await hydrated(p);
      await p.getByLabel('MCP server URL').fill(resourceUri);
      await p.getByLabel('Name (optional)').fill(long('Billing ledger MCP server for the finance operations team', 100));
      await p.getByLabel('Scopes', { exact: true }).fill('ledger:read invoices:read offline_access');
      await p.getByRole('button', { name: 'Generate' }).click();
      await expect(p.getByTestId('registered')).toBeVisible();
    }],
    ['identity-provider-edit', async (p) => {
      await p.goto('/identity-providers');
      await hydrated(p);
      await p.getByTestId('idp').first().getByRole('button', { name: 'Edit' }).click();
      await expect(p.locator('#edit-idp')).toBeVisible();
    }],
    ['trusting-server-edit', async (p) => {
      await p.goto('/trusting-servers');
      await hydrated(p);
      await p.getByTestId('trusting-server').first().getByRole('button', { name: 'Edit' }).click();
      await expect(p.locator('#edit-tas')).toBeVisible();
    }],
    ['sso-provider-edit', async (p) => {
      await p.goto('/single-sign-on');
      await hydrated(p);
      await p.getByTestId('sso-provider').first().getByRole('button', { name: 'Edit' }).click();
      await expect(p.locator('#edit-sso')).toBeVisible();
    }],
    ['reject-dialog', async (p) => {
      await p.goto(`/resources/${submitted}`);
      await hydrated(p);
      await p.getByRole('button', { name: 'Reject', exact: true }).click();
      await p.getByRole('alertdialog').getByLabel('Reason (required)').fill(long('Please put this behind the shared treasury gateway instead of exposing it directly', 400));
    }],
    ['check-result', async (p) => {
      await p.goto(`/integration/check?url=${encodeURIComponent('http://127.0.0.1:9/mcp')}`);
      await hydrated(p);
      await p.getByRole('button', { name: 'Check' }).click();
      await expect(p.getByTestId('check-step')).toHaveCount(5);
      await p.getByText('What was sent and what came back').first().click();
    }],
  ];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      for (const [name, open] of results) {
        await open(page);
        problems.push(...await check(page, `${name}-${width}-${scheme}`));
      }
    }
  }
  // The finance realm's sign-in providers, and one open for editing.
  await call(page.request, baseURL!, 'session/realm', { name: `finance-${suffix}` });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      await page.goto('/sign-in-providers');
      await hydrated(page);
      await expect(page.getByTestId('realm-sso-provider')).toHaveCount(2);
      problems.push(...await check(page, `sign-in-providers-${width}-${scheme}`));
      await page.getByTestId('realm-sso-provider').first().getByRole('button', { name: 'Edit' }).click();
      await expect(page.locator('#edit-realm-sso')).toBeVisible();
      problems.push(...await check(page, `sign-in-provider-edit-${width}-${scheme}`));
    }
  }
  await call(page.request, baseURL!, 'session/realm', { name: 'default' });
  // A developer's own submission, with the button that withdraws it, and their Overview saying
  // what was rejected and why.
  await page.context().clearCookies();
  await login(page, DEVELOPER);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      await page.goto(`/resources/${submitted}`);
      await hydrated(page);
      await expect(page.getByRole('button', { name: 'Withdraw submission' })).toBeVisible();
      problems.push(...await check(page, `submission-${width}-${scheme}`));
      await page.goto('/');
      await hydrated(page);
      // Other specs may have rejected this developer's submissions too.
      await expect(page.getByTestId('rejection').filter({ hasText: 'approved HR gateway' })).toBeVisible();
      problems.push(...await check(page, `developer-overview-${width}-${scheme}`));
    }
  }
  // The signed-out sign-in page, too.
  await page.context().clearCookies();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto('/login');
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
    for (const v of axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
      problems.push(`login @${width}: ${v.id}`);
    }
    await page.screenshot({ path: `screenshots/login-${width}.png`, fullPage: true });
  }
  // The authorization endpoint's own pages (server-rendered, no JavaScript): sign-in, consent
  // and an error page.
  const authorize = `/realms/default/authorize?response_type=code&client_id=desktop-${suffix}` +
    `&redirect_uri=${encodeURIComponent('http://127.0.0.1:53682/callback')}` +
    '&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256' +
    `&scope=${encodeURIComponent('ledger:read invoices:approve payments:refund')}&state=s&resource=${encodeURIComponent(resourceUri)}`;
  const pages: [string, (p: Page) => Promise<void>][] = [
    ['authorize-sign-in', async (p) => { await p.goto(authorize); }],
    ['authorize-consent', async (p) => {
      await p.goto(authorize);
      await p.getByLabel('Email').fill(`${long('maximilian.alexander', 50)}@subsidiary.example-corporation.com`);
      await p.getByLabel('Password').fill('a-long-enough-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await expect(p.getByTestId('client-name')).toBeVisible();
    }],
    ['authorize-error', async (p) => { await p.goto('/realms/default/authorize?response_type=code&client_id=nobody'); }],
  ];
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      for (const [name, open] of pages) {
        await page.context().clearCookies();
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height: 844 });
        await open(page);
        problems.push(...await check(page, `${name}-${width}-${scheme}`));
      }
    }
  }
  expect(problems).toEqual([]);
});
