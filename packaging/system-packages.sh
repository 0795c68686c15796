#!/bin/sh
# The system packages Tapemind needs beyond its Python wheels, installed where that can
# be done without asking (Debian or Ubuntu, as root), named otherwise.
#
#   packaging/system-packages.sh run    what `make run` needs: Qt's runtime libraries, a CJK font
#   packaging/system-packages.sh test   + what `make test` needs: a private desktop bus, Xvfb and
#                                       gnome-keyring (the tray and keyring tests), Node.js and npm
#                                       (the TypeScript MCP client)
#
# Installs nothing that is there already; prints nothing then. Elsewhere (macOS, Windows,
# other Linux distributions) it checks what it can (a CJK font) and says what is missing.
set -eu

RUN_PACKAGES="libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0
libxcb-xinerama0 libxcb-randr0 libxcb-cursor0 libglib2.0-0 fonts-wqy-microhei"
TEST_PACKAGES="dbus dbus-x11 gnome-keyring xvfb"

want=$RUN_PACKAGES
case "${1:-run}" in
    run) ;;
    test) want="$RUN_PACKAGES $TEST_PACKAGES" ;;
    *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=""
    for pkg in $want; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
        case "$status" in *" installed") ;; *) missing="$missing $pkg" ;; esac
    done
    if [ "${1:-run}" = test ] && ! command -v npm >/dev/null 2>&1; then
        missing="$missing nodejs npm"
    fi
    [ -z "$missing" ] && exit 0
    if [ "$(id -u)" = 0 ]; then
        echo "Installing system packages:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086  (one word per package)
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
        exit 0
    fi
    echo "Tapemind needs these system packages, which are not installed:" >&2
    echo " $missing" >&2
    echo "Install them (as root), then run make again:" >&2
    echo "  sudo apt-get install --no-install-recommends$missing" >&2
    exit 1
fi

# No apt: check what can be checked, and say what to install.
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ]; then
    echo "No font here draws Chinese: install one (e.g. WenQuanYi Micro Hei or Noto Sans CJK);" >&2
    echo "the app and its tests show Chinese text." >&2
    exit 1
fi
if [ "${1:-run}" = test ] && ! command -v npm >/dev/null 2>&1; then
    echo "The tests need Node.js 18+ and npm (the TypeScript MCP client): install them." >&2
    exit 1
fi
exit 0
