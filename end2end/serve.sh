#!/bin/sh
# Starts the server for the browser tests on a fresh SQLite database with two accounts
# (E2E_BIN picks the binary; `cargo xtask test` uses the debug build the Rust tests made).
set -eu
data="${E2E_DATA_DIR:-}"
if [ -z "$data" ]; then data=$(mktemp -d); fi
rm -rf "$data/db" && mkdir -p "$data/db"
export PORTCULLIS_DATA_DIR="$data/db"
export PORTCULLIS_PUBLIC_URL="http://127.0.0.1:${E2E_PORT:-3100}"
export PORTCULLIS_HTTP__BIND="127.0.0.1:${E2E_PORT:-3100}"
export PORTCULLIS_CONSOLE__SITE_DIR=target/site
# The MCP servers the SDK tests start listen on http://127.0.0.1.
export PORTCULLIS_DEV__ALLOW_HTTP_LOOPBACK_RESOURCES=true
# "Check an MCP server" reaches those servers on loopback (development setting).
export PORTCULLIS_DEV__ALLOW_LOOPBACK_CLIENT_URLS=true
bin="${E2E_BIN:-target/release/portcullis}"
echo 'admin-password-123' | $bin admin create --email admin@example.com --name 'Ada Admin' --role admin
echo 'developer-password-123' | $bin admin create --email dev@example.com --name 'Dev Eloper' --role developer
exec $bin serve
