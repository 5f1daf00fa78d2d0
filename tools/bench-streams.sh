#!/usr/bin/env bash
# Many idle streams (issue 16, target 4; docs/performance.md, "Idle streams"):
#   bash tools/bench-streams.sh path/to/parlour
# Starts BENCH_INSTANCES (default 1) servers on one fresh Postgres database and runs the stream
# generator (api/examples/streamgen.rs) against them: STREAMS (default 10000) spectator streams
# over GAMES (default 500) games of GOOGLY, then RATE (default 100) moves a second for STREAM_SECONDS
# (default 30) through the same servers. It prints each server's memory and descriptors before,
# with the streams open and after they all closed, and how long each stream took to hear each
# move. Needs a release build of the generator (STREAMGEN overrides its path) and Postgres on
# 127.0.0.1:5432 with trust auth. The streams come from 127.0.0.2 upwards (loopback only).
set -u
bin=$1
streamgen=${STREAMGEN:-target/release/examples/streamgen}
# shellcheck source=tools/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
key=$(mktemp -u)
url=$(fresh_pg)
servers=()
bases=()
for i in $(seq 1 "${BENCH_INSTANCES:-1}"); do
    port=$((18200 + i))
    RUST_LOG=warn DATABASE_URL=$url PARLOUR_SIGNING_KEY_FILE=$key \
        "$bin" --addr 127.0.0.1:$port --no-rate-limit --max-streams 20000 >/dev/null 2>&1 &
    servers+=($!)
    bases+=("http://127.0.0.1:$port")
    wait_up $port || exit 1
done
list=$(IFS=,; echo "${bases[*]}")
pids=$(IFS=,; echo "${servers[*]}")
STREAMGEN_PIDS=$pids "$streamgen" "$list" googly 2 "${STREAMS:-10000}" "${GAMES:-500}" "${STREAM_SECONDS:-30}" "${RATE:-100}"
status=$?
kill "${servers[@]}"
wait "${servers[@]}" 2>/dev/null
rm -f "$key"
exit $status
