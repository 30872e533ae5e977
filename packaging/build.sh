#!/usr/bin/env bash
# Build the Cockpit desktop bundle with PyInstaller, from the repository's venv.
#
#   bash packaging/build.sh             one folder: dist/cockpit/cockpit
#   bash packaging/build.sh --onefile   one file:   dist/cockpit-onefile/cockpit
#   bash packaging/build.sh --smoke     ... then run the smoke test on what was built
#   bash packaging/build.sh --smoke-only   only run the smoke test on an existing build
#
# Prints the build time and the bundle's size. The smoke test runs the bundle
# with --smoke-test (offscreen, temporary COCKPIT_HOME, demo task up to the
# approval gate, rejected) and fails on a non-zero exit, on any traceback, and
# on any stderr line not in the allow-list of harmless Qt messages below.
# Extra smoke-test arguments (e.g. --webdriver-url URL) go in SMOKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

onefile=0 smoke=0 build=1
for arg in "$@"; do
  case "$arg" in
    --onefile) onefile=1 ;;
    --smoke) smoke=1 ;;
    --smoke-only) smoke=1 build=0 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "build.sh: no .venv here; run scripts/setup.sh first" >&2
  exit 1
fi
if [ "$onefile" = 1 ]; then
  DIST=dist/cockpit-onefile EXE=dist/cockpit-onefile/cockpit
else
  DIST=dist EXE=dist/cockpit/cockpit
fi

if [ "$build" = 1 ]; then
  if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
    echo "build.sh: installing the build extra (pyinstaller)" >&2
    .venv/bin/pip install -q --disable-pip-version-check -e ".[build]"
  fi
  command -v objdump >/dev/null || { echo "build.sh: PyInstaller needs objdump (Debian: apt-get install binutils)" >&2; exit 1; }
  export PYINSTALLER_CONFIG_DIR="$ROOT/build/pyinstaller-config"  # its cache stays in the workspace
  export COCKPIT_ONEFILE=$onefile
  start=$SECONDS
  "$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
      --distpath "$DIST" --workpath build/pyinstaller packaging/cockpit.spec
  elapsed=$((SECONDS - start))
  if [ "$onefile" = 0 ]; then
    cp packaging/cockpit.desktop dist/cockpit/cockpit.desktop
    cp cockpit/resources/icons/cockpit-256.png dist/cockpit/cockpit.png
    size=$(du -sh dist/cockpit | cut -f1)
    files=$(find dist/cockpit -type f | wc -l)
    echo "build.sh: built dist/cockpit/ (one folder) in ${elapsed}s: $size, $files files"
  else
    size=$(du -sh "$EXE" | cut -f1)
    echo "build.sh: built $EXE (one file) in ${elapsed}s: $size"
  fi
fi

[ "$smoke" = 1 ] || exit 0
[ -x "$EXE" ] || { echo "build.sh: nothing to smoke-test at $EXE; build first" >&2; exit 1; }

# Known-harmless stderr lines (regular expressions, whole line). Qt's offscreen
# platform says it cannot do some window-manager things; nothing else may appear.
ALLOW='^(This plugin does not support (propagateSizeHints|raise|requestActivate|grabbing the keyboard|setting window opacity)\(\)'
ALLOW+='|qt\.qpa\.xcb: X server does not support XInput 2'
ALLOW+='|QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to .*'
ALLOW+=')$'

err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
echo "build.sh: smoke test: $EXE --smoke-test ${SMOKE_ARGS:-}"
start=$SECONDS
# Unset QT_QPA_PLATFORM so the test proves the bundle goes offscreen by itself when there is no display.
set +e
env -u QT_QPA_PLATFORM -u DISPLAY -u WAYLAND_DISPLAY "$EXE" --smoke-test ${SMOKE_ARGS:-} >"$out" 2>"$err"
rc=$?
set -e
elapsed=$((SECONDS - start))
sed 's/^/  | /' "$out"
if [ -s "$err" ]; then
  echo "  stderr:"
  head -200 "$err" | sed 's/^/  ! /'
  [ "$(wc -l <"$err")" -le 200 ] || echo "  ! ... ($(wc -l <"$err") lines in all)"
fi
bad=$(grep -v -E "$ALLOW" "$err" || true)
if [ "$rc" -ne 0 ]; then
  echo "build.sh: smoke test FAILED (exit status $rc)" >&2
  exit 1
fi
if grep -q "Traceback" "$err"; then
  echo "build.sh: smoke test FAILED: a traceback on stderr" >&2
  exit 1
fi
if [ -n "$bad" ]; then
  echo "build.sh: smoke test FAILED: unexpected stderr:" >&2
  printf '%s\n' "$bad" | head -40 | sed 's/^/  > /' >&2
  exit 1
fi
echo "build.sh: smoke test passed in ${elapsed}s"
