#!/usr/bin/env bash
# The lint step of CI (.ci/run), after scripts/setup.sh: the import contracts, Ruff (pyflakes, bugbear,
# import order; pyproject.toml's [tool.ruff]), ESLint on the in-page JavaScript (eslint.config.js) and the
# manual's strict MkDocs build (mkdocs.yml: broken links and anchors fail it). Stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "lint: import contracts" >&2
.venv/bin/lint-imports >/dev/null
echo "lint: ruff" >&2
.venv/bin/ruff check --quiet .
echo "lint: eslint" >&2
if [ ! -x node_modules/.bin/eslint ]; then
  npm ci --no-audit --no-fund --silent
fi
node_modules/.bin/eslint
echo "lint: docs (mkdocs build --strict)" >&2
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet -d "$site/site"
echo "lint: all passed" >&2
