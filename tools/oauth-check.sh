#!/usr/bin/env bash
# Runs tools/oauth-check.py against a live server on SQLite: Authlib's OAuth 2.0 client, an
# implementation that is not Parlour's, goes through the authorization code flow with PKCE,
# uses the token it gets, and revokes it.
# Usage: bash tools/oauth-check.sh path/to/parlour   (installs the library into a venv once)
set -euo pipefail
bin=${1:?the parlour binary}
# A path relative to where the script was started from: it changes directory next.
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
cd "$(dirname "$0")/.."
venv=${PARLOUR_OAUTH_VENV:-$PWD/target/venvs/oauth}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import authlib, requests' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r tools/oauth-requirements.txt
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite://$work/parlour.db" PARLOUR_SIGNING_KEY_FILE="$work/signing.key" \
    PARLOUR_PUBLIC_URL="http://127.0.0.1:$port" RUST_LOG=warn \
    "$bin" --addr "127.0.0.1:$port" --no-rate-limit >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 50); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
if ! curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
    echo "the server did not get ready on port $port; its log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
if ! "$venv/bin/python" tools/oauth-check.py "http://127.0.0.1:$port"; then
    echo "-- the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
