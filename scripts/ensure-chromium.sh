#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing (playwright-core drives it;
# it never downloads a browser of its own).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
echo "installing chromium (Debian package)…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
