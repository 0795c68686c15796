#!/bin/sh
# Screenshots of every page of the app (and the two review dialogs), in English, Chinese and
# the dark theme, at 1024x640, from a fresh demo home: docs/screenshots/<page>-<en|zh|dark>.png.
# Usage: sh docs/screenshots.sh [PYTHON]   (run from the repository's root; `make screenshots`)
set -eu
PY=${1:-python3}
OUT=docs/screenshots
SIZE=1024x640
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export TAPEMIND_VAULT_PASSPHRASE=tapemind-demo
export PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring
export QT_QPA_PLATFORM=offscreen
"$PY" -m app --home "$HOME_DIR/home" demo >/dev/null
# Skills proposed from the demo's memories, for the Insights page and its review dialog.
"$PY" -m app --home "$HOME_DIR/home" insights --agent claude-code >/dev/null
mkdir -p "$OUT"
shot() {  # name, lang, theme, app arguments...
	name=$1 lang=$2 theme=$3
	shift 3
	"$PY" -m ui.main --home "$HOME_DIR/home" --lang "$lang" --theme "$theme" --size "$SIZE" \
		--screenshot "$OUT/$name.png" "$@"
	echo "$OUT/$name.png"
}
for variant in en:en:light zh:zh:light dark:en:dark; do
	suffix=${variant%%:*}
	rest=${variant#*:}
	lang=${rest%%:*}
	theme=${rest#*:}
	for page in dashboard memories conflicts insights archive tape vault agents; do
		shot "$page-$suffix" "$lang" "$theme" --page "$page"
	done
	shot "conflict-review-$suffix" "$lang" "$theme" --page conflicts --review
	shot "insight-review-$suffix" "$lang" "$theme" --page insights --review
done
