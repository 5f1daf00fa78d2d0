#!/usr/bin/env bash
# Runs the load generator against one parlour binary, on Postgres and on SQLite, as in
# docs/performance.md: bash tools/bench-loadgen.sh LABEL path/to/parlour
# Needs a release build of the load generator (cargo build --release -p parlour --example
# loadgen; LOADGEN overrides its path) and a Postgres on 127.0.0.1:5432 with trust auth.
# Every run is bounded: 15 s of load per row, against 127.0.0.1 only. BENCH_MODES lists how the
# games are made (the load generator's last argument: seats, hosted, hooked; default seats) and
# BENCH_ROWS which rows to run (default: GIRL, British Birds and GOOGLY at 64 games).
set -u
label=$1
bin=$2
loadgen=${LOADGEN:-target/release/examples/loadgen}
port=18090
# The load comes from one address far faster than any client should: switch the rate limits
# off, on binaries that have them (older builds compared against have no such flag).
extra=()
if "$bin" --help 2>/dev/null | grep -q rate-limit; then
    extra=(--no-rate-limit)
fi
for backend in pg sqlite; do
    if [ "$backend" = pg ]; then
        psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS parlour_bench" >/dev/null
        psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE parlour_bench" >/dev/null
        # Loopback: no TLS, as before sqlx had it (with it, `prefer` encrypts and costs ~12 %).
        url=postgres://postgres@127.0.0.1:5432/parlour_bench?sslmode=${BENCH_SSLMODE:-disable}
    else
        dir=$(mktemp -d)
        url=sqlite://$dir/parlour.db
    fi
    # Hooked games send webhooks to the load generator's receiver on 127.0.0.1.
    RUST_LOG=warn DATABASE_URL=$url PARLOUR_SIGNING_KEY_FILE=$(mktemp -u) PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1 \
        "$bin" --addr 127.0.0.1:$port "${extra[@]}" >/dev/null 2>&1 &
    server=$!
    sleep 3
    IFS=, read -r -a rows <<<"${BENCH_ROWS:-girl 2 64,british-birds 3 64,googly 2 64}"
    for row in "${rows[@]}"; do
        [ "$backend" = sqlite ] && [ "${row%% *}" != girl ] && continue
        for mode in ${BENCH_MODES:-seats}; do
            echo "== $label $backend $row $mode"
            # shellcheck disable=SC2086  # the row is three words on purpose
            "$loadgen" http://127.0.0.1:$port $row 15 "$mode" 2>&1 | tail -2
        done
    done
    kill "$server"
    wait "$server" 2>/dev/null
done
