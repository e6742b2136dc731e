"""An MCP host built from the official Python SDK (`mcp` on PyPI): it knows only the server URL.

It prints one JSON line per step on stdout: {"authorize": url} when a person must sign in
(the test drives the browser), then {"result": text} with the tool's answer, or {"error": ...}.
Its loopback callback listener takes the authorization response, as a CLI host's would.
"""

import asyncio
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

CALLBACK_PORT = 8977
CALLBACK = f"http://127.0.0.1:{CALLBACK_PORT}/callback"


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def say(**kv: object) -> None:
    print(json.dumps(kv), flush=True)


async def main(server_url: str) -> None:
    loop = asyncio.get_running_loop()
    arrived: asyncio.Future[AuthorizationCodeResult] = loop.create_future()

    class Callback(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            q = parse_qs(urlparse(self.path).query)
            result = AuthorizationCodeResult(
                code=q.get("code", [""])[0],
                state=q.get("state", [None])[0],
                iss=q.get("iss", [None])[0],
            )
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"back in the app")
            loop.call_soon_threadsafe(lambda: arrived.done() or arrived.set_result(result))

        def log_message(self, *args: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", CALLBACK_PORT), Callback)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    async def redirect_handler(url: str) -> None:
        say(authorize=url)

    async def callback_handler() -> AuthorizationCodeResult:
        return await arrived

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(
            client_name="MCP Python SDK test client",
            redirect_uris=[CALLBACK],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    try:
        async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
            async with streamable_http_client(server_url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    result = await session.call_tool("whoami", {})
                    text = result.content[0].text  # type: ignore[union-attr]
                    say(result=text, client_id=storage.client.client_id if storage.client else None)
    finally:
        httpd.shutdown()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
    except BaseException as e:  # reported to the test, which fails with it
        say(error=repr(e))
        raise
