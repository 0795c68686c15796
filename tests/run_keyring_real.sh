#!/bin/sh
# Run the tests marked keyring_real against a real Secret Service: a private D-Bus
# session bus with gnome-keyring's "secrets" component, its "login" collection created
# and unlocked from a test password. Headless: no X display and no desktop needed.
#
# Installs nothing. On Debian/Ubuntu it needs:
#   apt-get install -y --no-install-recommends gnome-keyring dbus dbus-x11
# (dbus gives dbus-run-session and dbus-send; dbus-x11 satisfies gnome-keyring's
# dbus-session-bus dependency without pulling in systemd's user session.)
#
# Usage: tests/run_keyring_real.sh [extra pytest args]
# PYTHON selects the interpreter (default: .venv/bin/python if present, else python3).
set -eu

cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run_keyring_real: $tool not found; install: gnome-keyring dbus dbus-x11" >&2
        exit 1
    fi
done

# A private data/runtime/config dir: the test keyring (and its password) never touches
# the user's real keyrings, and a user keyringrc cannot pick another backend.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir -p "$scratch/data" "$scratch/config" "$scratch/cache" "$scratch/runtime"
chmod 700 "$scratch/runtime"
export XDG_DATA_HOME="$scratch/data" XDG_CONFIG_HOME="$scratch/config"
export XDG_CACHE_HOME="$scratch/cache" XDG_RUNTIME_DIR="$scratch/runtime"
export PYTHON
unset PYTHON_KEYRING_BACKEND DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL

dbus-run-session -- sh -eu -c '
    # --unlock reads the password on stdin and creates the "login" collection with it
    # on first use; --components=secrets starts only the Secret Service.
    printf %s "tapemind-test-password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    tries=0
    until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
            | grep -q "boolean true"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 50 ]; then echo "run_keyring_real: no Secret Service on the bus" >&2; exit 1; fi
        sleep 0.1
    done
    exec "$PYTHON" -m pytest -m keyring_real "$@"
' run_keyring_real "$@"
