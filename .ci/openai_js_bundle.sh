#!/usr/bin/env bash
# The official openai JavaScript SDK from npm, bundled for a browser page (tests/serve/test_serve_browser_sdk.py
# loads it from a local file: no CDN). Without node/npm the test skips with the reason.
set -euo pipefail
out="${GROVE_OPENAI_JS_BUNDLE:-$HOME/.cache/grove-tests/openai-js/openai.browser.mjs}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --silent --no-audit --no-fund openai@6 esbuild@0.28
echo "export { default as OpenAI } from 'openai';" > entry.mjs
npx esbuild entry.mjs --bundle --format=esm --platform=browser --outfile=openai.browser.mjs --log-level=warning
mkdir -p "$(dirname "$out")"
cp openai.browser.mjs "$out"
