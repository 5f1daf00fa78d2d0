#!/usr/bin/env bash
# The typed-client check CI runs: validates openapi/openapi.json, generates TypeScript types
# from it, compiles src/*.ts with `tsc --strict`, then runs two programs against a live server:
# src/play.ts creates a GIRL game and makes a legal move with typed bodies, src/events.ts reads
# the log with each entry narrowed by its `type`, and src/follow.ts
# follows a hosted game by webhook, verifying every message with src/webhooks.ts. Anything
# refused, forged or missing fails the check.
#
#   bash clients/typescript/check.sh [path/to/parlour]
#
# The server binary defaults to $CARGO_TARGET_DIR/debug/parlour (else target/debug/parlour);
# it runs on a temporary SQLite database and a free port, and is stopped at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="${1:-${CARGO_TARGET_DIR:-$root/target}/debug/parlour}"
# A path relative to where the script was started from: this script changes directory below.
case "$binary" in /*) ;; *) binary="$PWD/$binary" ;; esac
if [ ! -x "$binary" ]; then
    echo "no parlour binary at $binary: build it (cargo build) or give its path" >&2
    exit 1
fi
for tool in node npm; do
    if ! command -v "$tool" >/dev/null; then
        echo "$tool is needed (Node.js 20.19 or later)" >&2
        exit 1
    fi
done
cd "$here"

# No network but the registry: no telemetry, no update checks.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

echo "-- npm ci"
npm ci --no-audit --no-fund --loglevel=error

echo "-- the OpenAPI document passes redocly lint (recommended-strict)"
npx --no-install redocly lint --config redocly.yaml "$root/openapi/openapi.json"

echo "-- TypeScript types generated from it"
npx --no-install openapi-typescript "$root/openapi/openapi.json" --output src/parlour.d.ts

echo "-- src/*.ts compile with tsc --strict"
rm -rf dist
npx --no-install tsc --strict --project tsconfig.json

echo "-- and play against a live server (allowed to send webhooks to 127.0.0.1)"
# shellcheck source=../../tools/live-server.sh
source "$root/tools/live-server.sh"
live_server "$binary" PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1
if ! node dist/play.js "http://127.0.0.1:$port"; then
    echo "the typed program failed; the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
if ! node dist/events.js "http://127.0.0.1:$port"; then
    echo "the typed log reader failed; the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
if ! node dist/follow.js "http://127.0.0.1:$port"; then
    echo "the webhook follower failed; the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
echo "typed client check: passed"
