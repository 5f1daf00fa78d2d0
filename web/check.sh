#!/usr/bin/env bash
# The web client's check CI runs: rebuilds the bundle from web/src (types generated from
# openapi/openapi.json, `tsc --strict`, esbuild) and fails if it differs from the committed
# web/dist, which the binary embeds; then drives the real server with Debian's headless
# Chromium through playwright-core: whole games played by two browsers, asks, the Crown,
# GOOGLY's scorecard, the replay, nothing hidden in another seat's page, and notices pushed to
# the service worker by way of a loopback push service (hence PARLOUR_WEBHOOKS_ALLOW_PRIVATE),
# and email addresses confirmed through the mail the server sends to a sink (tests/smtp-sink.mjs,
# started here: PARLOUR_SMTP_URL points at it, and the tests read its mails at SMTP_SINK).
#
#   bash web/check.sh [path/to/parlour]
#
# The binary defaults to $CARGO_TARGET_DIR/debug/parlour (else target/debug/parlour); it runs on
# a temporary SQLite database and a free port. Screenshots of every table are left in
# web/test-results/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
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
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
    echo "-- installing Debian's chromium for the browser tests"
    # A fresh machine may have no package lists yet: fetch them when the install cannot.
    apt-get install -y -qq chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
fi
cd "$here"
export NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

echo "-- npm ci"
npm ci --no-audit --no-fund --loglevel=error

echo "-- the committed bundle is the one web/src builds"
npm run --silent build >/dev/null
if ! git -C "$root" diff --quiet -- web/dist || [ -n "$(git -C "$root" ls-files --others -- web/dist)" ]; then
    git -C "$root" status --short -- web/dist >&2
    echo "web/dist is not what web/src builds: run \`npm run build\` in web/ and commit web/dist" >&2
    exit 1
fi

echo "-- browser tests against a live server"
# The mail sink first, on free ports it prints: SMTP for the server, HTTP for the tests.
sink_ports="$(mktemp)"
node tests/smtp-sink.mjs >"$sink_ports" &
sink=$!
trap 'kill "$sink" 2>/dev/null || true; rm -f "$sink_ports"' EXIT
for _ in $(seq 1 50); do
    grep -q '^http ' "$sink_ports" && break
    sleep 0.1
done
smtp_port="$(sed -n 's/^smtp //p' "$sink_ports")"
sink_http="$(sed -n 's/^http //p' "$sink_ports")"
if [ -z "$smtp_port" ] || [ -z "$sink_http" ]; then
    echo "the SMTP sink did not start" >&2
    exit 1
fi
# shellcheck source=../tools/live-server.sh
source "$root/tools/live-server.sh"
live_server "$binary" PARLOUR_BOT_PACE_MS=50 PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1 PARLOUR_SMTP_URL="smtp://127.0.0.1:$smtp_port"
# live_server's trap (stop the server, remove its folder) replaced the sink's: one for both.
trap 'kill "$server" "$sink" 2>/dev/null || true; wait "$server" "$sink" 2>/dev/null || true; rm -rf "$work" "$sink_ports"' EXIT
if ! PARLOUR_URL="http://127.0.0.1:$port" SMTP_SINK="http://127.0.0.1:$sink_http" npm test --silent; then
    echo "the browser tests failed (screenshots in web/test-results/); the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
echo "web client check: passed"
