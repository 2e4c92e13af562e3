#!/usr/bin/env bash
# `npm start`: opens Tally in a real VS Code (code-server on 127.0.0.1) with a demo workspace.
# Tally is installed into this VS Code's extensions folder (packed from the build just made), so
# the plain address http://127.0.0.1:PORT/ shows it too. The demo workspace lives outside the
# clone, as a repository of its own (scripts/vscode/demo-workspace.mjs): no git prompt.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/vscode/install-code-server.sh
PORT="${TALLY_PORT:-8080}"
STATE="${TALLY_PRODUCT_STATE:-.vscode-test/product}"
ENTRY=.vscode-test/code-server/node_modules/code-server/out/node/entry.js
mkdir -p "$STATE/user-data/User" "$STATE/extensions"
[ -f "$STATE/user-data/User/settings.json" ] || printf '{\n  "workbench.startupEditor": "none",\n  "telemetry.telemetryLevel": "off"\n}\n' > "$STATE/user-data/User/settings.json"
WS_ABS="$(node scripts/vscode/demo-workspace.mjs)"
VSIX="$STATE/tally-start.vsix"
echo "Installing Tally into this VS Code…"
node scripts/pack-vsix.mjs "$VSIX" >/dev/null
node "$ENTRY" --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" --install-extension "$VSIX" --force >/dev/null
URL="http://127.0.0.1:$PORT/?folder=$(node -e 'console.log(encodeURIComponent(process.argv[1]))' "$WS_ABS")"
echo
echo "Tally is running in VS Code at:"
echo "  http://127.0.0.1:$PORT/"
echo "(the demo workspace $WS_ABS; $URL opens it by name)"
echo "Open it in a browser; then run \"Tally: Open Demo Replay\" (press F1 for the command palette) to explore a recorded run. Ctrl-C stops it."
echo "No API key? In another terminal run \"npm run fake-model\": a scripted local model (no network) that"
echo "streams markdown, reads, edits (with the diff to accept) and runs commands; it prints the three settings to use."
echo
exec node "$ENTRY" --auth none --bind-addr "127.0.0.1:$PORT" \
  --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" --disable-telemetry --disable-update-check "$WS_ABS"
