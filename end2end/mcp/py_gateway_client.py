"""An MCP client built from the official Python SDK (`mcp` on PyPI), calling Portcullis's MCP
gateway with a bearer token: it lists the facade's tools, searches, and runs one capability.

Usage: py_gateway_client.py <gateway url> <token> <capability> <arguments as JSON>
Prints one JSON line: {"tools": [...], "capabilities": [...], "result": text} or {"error": ...}.
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, token: str, capability: str, arguments: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = [t.name for t in (await session.list_tools()).tools]
                found = await session.call_tool("search_capabilities", {})
                structured = getattr(found, "structured_content", None) or {}
                names = [c["name"] for c in structured.get("capabilities", [])]
                ran = await session.call_tool(
                    "execute_capability",
                    {"name": capability, "arguments": json.loads(arguments), "subject_ids": ["person-7"]},
                )
                text = ran.content[0].text  # type: ignore[union-attr]
                print(json.dumps({"tools": sorted(tools), "capabilities": sorted(names), "result": text, "is_error": bool(getattr(ran, "is_error", False))}), flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main(*sys.argv[1:5]))
    except Exception as e:  # noqa: BLE001 - the test reads what went wrong
        print(json.dumps({"error": repr(e)}), flush=True)
        sys.exit(1)
