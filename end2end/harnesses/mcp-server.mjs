// Loopback MCP servers for the harness test, built only from the official TypeScript SDK.
//
//   node mcp-server.mjs https CERT KEY LOG   streamable HTTP over TLS on 127.0.0.1 (a free
//                                            port, printed as {"port": N} on stdout); every
//                                            path is a server of its own (/approved/mcp,
//                                            /user/mcp, ...), answering as the path names it
//   node mcp-server.mjs stdio NAME LOG       one server on stdin/stdout
//
// Every request (its path, JSON-RPC method and headers) and every stdio start is appended
// to LOG as one JSON line, so the test can tell which servers a CLI reached and what headers
// it sent.
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const [mode, ...rest] = process.argv.slice(2);

function log(log, entry) {
  appendFileSync(log, JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n');
}

/** A server whose one tool answers with its own name. */
function mcp(name) {
  const server = new McpServer({ name: `portcullis-test-${name}`, version: '1.0.0' });
  server.registerTool('whoami', { description: `Says which test server this is (${name})` }, async () => ({
    content: [{ type: 'text', text: name }],
  }));
  return server;
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

if (mode === 'https') {
  const [cert, key, logFile] = rest;
  const httpd = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, async (req, res) => {
    const url = new URL(req.url, 'https://127.0.0.1');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const rpc = Array.isArray(body) ? body.map((m) => m.method).join(',') : body?.method;
    log(logFile, { server: url.pathname, method: req.method, rpc, headers: req.headers });
    const m = url.pathname.match(/^\/([a-z0-9-]+)\/mcp$/);
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no standalone SSE stream and no session to delete.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = mcp(m[1]);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  httpd.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ port: httpd.address().port }) + '\n');
  });
  process.on('SIGTERM', () => httpd.close(() => process.exit(0)));
} else if (mode === 'stdio') {
  const [name, logFile] = rest;
  log(logFile, { server: `stdio:${name}`, method: 'spawn', pid: process.pid });
  const server = mcp(name);
  const transport = new StdioServerTransport();
  // The client going away ends the server: no orphan outlives the CLI that spawned it.
  process.stdin.on('end', () => process.exit(0));
  await server.connect(transport);
} else {
  process.stderr.write('usage: mcp-server.mjs https CERT KEY LOG | stdio NAME LOG\n');
  process.exit(2);
}
