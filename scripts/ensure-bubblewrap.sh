#!/usr/bin/env bash
# Installs Debian's bubblewrap for the sandbox's tests when it is missing (Linux only): the agent's
# commands run under it, and the tests attack it for real.
set -euo pipefail
if [ "$(uname -s)" != Linux ] || command -v bwrap >/dev/null 2>&1; then exit 0; fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
echo "installing bubblewrap (Debian package)…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap >/dev/null
