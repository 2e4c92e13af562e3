#!/usr/bin/env bash
# `npm start`: opens Tally in a real VS Code (code-server on 127.0.0.1) with a demo workspace.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/vscode/install-code-server.sh
PORT="${TALLY_PORT:-8080}"
STATE=.vscode-test/product
WORKSPACE="$STATE/demo-workspace"
mkdir -p "$STATE/user-data/User" "$STATE/extensions"
[ -d "$WORKSPACE" ] || cp -r media/demo-workspace "$WORKSPACE"
[ -f "$STATE/user-data/User/settings.json" ] || printf '{\n  "workbench.startupEditor": "none",\n  "telemetry.telemetryLevel": "off"\n}\n' > "$STATE/user-data/User/settings.json"
ROOT="$(pwd)"
WS_ABS="$(cd "$WORKSPACE" && pwd)"
PAYLOAD=$(node -e "console.log(encodeURIComponent(JSON.stringify([['extensionDevelopmentPath','vscode-remote://127.0.0.1:$PORT$ROOT']])))")
URL="http://127.0.0.1:$PORT/?folder=$(node -e "console.log(encodeURIComponent('$WS_ABS'))")&payload=$PAYLOAD"
echo
echo "Tally is running in VS Code at:"
echo "  $URL"
echo "Open it in a browser; then run \"Tally: Open Demo Replay\" (press F1 for the command palette) to explore a recorded run. Ctrl-C stops it."
echo "No API key? In another terminal run \"npm run fake-model\": a scripted local model (no network) that"
echo "streams markdown and calls list_files/read_file/run_command; it prints the three settings to use."
echo
exec node .vscode-test/code-server/node_modules/code-server/out/node/entry.js --auth none --bind-addr "127.0.0.1:$PORT" \
  --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" --disable-telemetry --disable-update-check "$WS_ABS"
