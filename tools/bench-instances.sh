#!/usr/bin/env bash
# Several instances over one Postgres (issue 16, target 2; docs/performance.md, "Several
# instances"): bash tools/bench-instances.sh path/to/parlour
# For 1, 2 and 3 instances (BENCH_INSTANCES), each on a fresh database: starts that many servers
# on 127.0.0.1 with one signing key, and runs the load generator against all of them at once,
# every game's requests sent to the instances in turn (LOADGEN_SPREAD=game for one instance a
# game, as sticky sessions would). A move refused anywhere (a stale table) stops the load
# generator with an error, so a finished row is also a check that no instance served or decided
# from a stale table. Prints moves/s, latencies, and the CPU seconds of the servers, Postgres and
# the load generator. BENCH_GAME (default "girl 4"), BENCH_GAMES (default 64) and SECONDS_PER_ROW
# (default 15) change the rows. Needs a release build of the load generator (LOADGEN overrides
# its path) and Postgres on 127.0.0.1:5432 with trust auth.
set -u
bin=$1
loadgen=${LOADGEN:-target/release/examples/loadgen}
seconds=${SECONDS_PER_ROW:-15}
game=${BENCH_GAME:-girl 4}
games=${BENCH_GAMES:-64}
# shellcheck source=tools/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
key=$(mktemp -u)

for instances in ${BENCH_INSTANCES:-1 2 3}; do
    url=$(fresh_pg)
    servers=()
    bases=()
    for i in $(seq 1 "$instances"); do
        port=$((18100 + i))
        RUST_LOG=warn DATABASE_URL=$url PARLOUR_SIGNING_KEY_FILE=$key \
            "$bin" --addr 127.0.0.1:$port --no-rate-limit >/dev/null 2>&1 &
        servers+=($!)
        bases+=("http://127.0.0.1:$port")
        # One at a time: the first runs the migrations.
        wait_up $port || exit 1
    done
    list=$(IFS=,; echo "${bases[*]}")
    server_before=0
    for s in "${servers[@]}"; do server_before=$(echo "$server_before + $(cpu_of "$s")" | bc); done
    pg_before=$(cpu postgres)
    TIMEFORMAT='%U %S'
    # shellcheck disable=SC2086  # the game is two words on purpose
    { time "$loadgen" "$list" $game "$games" "$seconds" >/tmp/bench-row.$$ 2>&1; } 2>/tmp/bench-time.$$
    status=$?
    pg_after=$(cpu postgres)
    server_after=0
    for s in "${servers[@]}"; do server_after=$(echo "$server_after + $(cpu_of "$s")" | bc); done
    kill "${servers[@]}"
    wait "${servers[@]}" 2>/dev/null
    line=$(tail -1 /tmp/bench-row.$$)
    read -r lu ls </tmp/bench-time.$$
    if [ $status -ne 0 ]; then
        echo "instances=$instances: the load generator failed: $line"
    else
        rate=$(echo "$line" | sed -n 's/.*(\([0-9]*\) moves\/s).*/\1/p')
        latency=$(echo "$line" | sed -n 's/.*latency \(p50 .*\)$/\1/p')
        echo "instances=$instances spread=${LOADGEN_SPREAD:-request} games=$games: ${rate} moves/s, $latency; CPU s: servers $(echo "$server_after - $server_before" | bc), Postgres $(echo "$pg_after - $pg_before" | bc), load generator $(echo "$lu + $ls" | bc)"
    fi
    rm -f /tmp/bench-row.$$ /tmp/bench-time.$$
done
rm -f "$key"
