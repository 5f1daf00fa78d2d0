#!/usr/bin/env bash
# Runs tools/webhooks-verify.py against a live server on SQLite: the Standard Webhooks
# reference library verifies every message sent while a game is played to its end.
# Usage: bash tools/webhooks-verify.sh path/to/parlour   (installs the library into a venv once)
set -euo pipefail
bin=${1:?the parlour binary}
# A path relative to where the script was started from: it changes directory next.
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
cd "$(dirname "$0")/.."
venv=${PARLOUR_WEBHOOKS_VENV:-$PWD/target/venvs/webhooks}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import standardwebhooks' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r tools/webhooks-requirements.txt
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite://$work/parlour.db" PARLOUR_SIGNING_KEY_FILE="$work/signing.key" \
    PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1 RUST_LOG=warn \
    "$bin" --addr "127.0.0.1:$port" --no-rate-limit >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
"$venv/bin/python" tools/webhooks-verify.py "http://127.0.0.1:$port"
