#!/usr/bin/env bash
# Installs code-server (VS Code 1.100, the last line that runs on Node 20) into .vscode-test/ so the
# extension can run in a real VS Code on machines where VS Code desktop cannot be downloaded.
# Idempotent: a stamp file makes a second run instant. Steps follow docs/TESTING-IN-VSCODE (shared).
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=4.100.3
DEST=.vscode-test/code-server
STAMP=$DEST/.installed-$VERSION
if [ -f "$STAMP" ]; then exit 0; fi

SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
missing=()
for pkg in libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev ripgrep chromium; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p "$DEST"
cd "$DEST"
[ -f package.json ] || echo '{"name":"tally-code-server","private":true}' > package.json
# Its postinstall refuses root and downloads ripgrep: install without scripts, then do its steps.
npm install --no-audit --no-fund --ignore-scripts "code-server@$VERSION" >/dev/null
CS=node_modules/code-server
(cd "$CS/lib/vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
(cd "$CS/lib/vscode/extensions" && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
GYP="$(dirname "$(command -v npm)")/../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$GYP" ] || GYP="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
for mod in kerberos node-pty @parcel/watcher @vscode/spdlog @vscode/deviceid native-watchdog; do
  dir="$CS/lib/vscode/node_modules/$mod"
  [ -d "$dir" ] || continue
  (cd "$dir" && node "$GYP" rebuild --nodedir=/usr >/dev/null 2>&1) || echo "warning: native build of $mod failed"
done
mkdir -p "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin"
cp /usr/bin/rg "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
(cd "$CS/lib/vscode" && ln -sfn node_modules node_modules.asar)
(cd "$CS/lib/vscode/bin/remote-cli" && ln -sfn code-linux.sh code-server)
(cd "$CS/lib/vscode/bin/helpers" && ln -sfn browser-linux.sh browser.sh)
npm rebuild argon2 >/dev/null 2>&1 || { echo "argon2 native build failed"; exit 1; }
touch ".installed-$VERSION"
echo "code-server $VERSION installed in $DEST"
