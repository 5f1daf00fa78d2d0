#!/usr/bin/env bash
# Postgres's own ceiling beside Parlour's moves, in one run (docs/performance.md, group commit):
#   bash tools/bench-vs-pgbench.sh path/to/parlour
# 1. pgbench, 16 clients, each transaction one insert of an event-sized row (a game id, a
#    position, a type, ~300 bytes of data, two hashes), for SECONDS;
# 2. the load generator against the server on Postgres, at 16 and 64 concurrent games, with every
#    move committed on its own (PARLOUR_COMMIT_GROUP=1) and with group commit (the default);
# 3. the same on SQLite.
# Each row prints moves/s, its ratio to pgbench's transactions/s, latencies, and the CPU seconds
# the server, Postgres and the load generator used in it. Needs a release build of the load
# generator (cargo build --release -p parlour --example loadgen; LOADGEN overrides its path) and a
# Postgres on 127.0.0.1:5432 with trust auth. BENCH_GAME (default "girl 4"), BENCH_GAMES
# (default "16 64"), BENCH_GROUPS (default "1 64") and SECONDS_PER_ROW (default 15) change the rows.
set -u
bin=$1
loadgen=${LOADGEN:-target/release/examples/loadgen}
seconds=${SECONDS_PER_ROW:-15}
game=${BENCH_GAME:-girl 4}
port=18091
# shellcheck source=tools/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"

echo "== pgbench: one event-sized row per transaction, 16 clients, ${seconds} s"
fresh_pg >/dev/null
"${psql_[@]}" -d parlour_bench -c "CREATE TABLE bench_events (game_id uuid, seq bigint, type text, data text, at timestamptz, prev_hash text, hash text, PRIMARY KEY (game_id, seq))" >/dev/null
script=$(mktemp)
data=$(printf '{"card":"%s","trick":3,"seat":1,"led":"hearts","note":"%0200d"}' abcdefgh 0)
hash=$(printf '%064d' 7)
cat >"$script" <<EOF
\set seq random(1, 1000000000)
INSERT INTO bench_events VALUES (gen_random_uuid(), :seq, 'card_played', '$data', now(), '$hash', '$hash');
EOF
pg_before=$(cpu postgres)
tps=$(pgbench -h 127.0.0.1 -U postgres -n -c 16 -j 2 -T "$seconds" -f "$script" parlour_bench 2>/dev/null |
    sed -n 's/^tps = \([0-9.]*\).*/\1/p' | tail -1)
pg_after=$(cpu postgres)
rm -f "$script"
echo "pgbench: ${tps} transactions/s; Postgres CPU $(echo "$pg_after - $pg_before" | bc) s"

for backend in pg sqlite; do
    for group in ${BENCH_GROUPS:-1 64}; do
        for games in ${BENCH_GAMES:-16 64}; do
            if [ "$backend" = pg ]; then
                url=$(fresh_pg)
            else
                dir=$(mktemp -d)
                url=sqlite://$dir/parlour.db
            fi
            RUST_LOG=warn DATABASE_URL=$url PARLOUR_SIGNING_KEY_FILE=$(mktemp -u) \
                PARLOUR_COMMIT_GROUP=$group "$bin" --addr 127.0.0.1:$port --no-rate-limit >/dev/null 2>&1 &
            server=$!
            sleep 3
            pg_before=$(cpu postgres)
            TIMEFORMAT='%U %S'
            # shellcheck disable=SC2086  # the game is two words on purpose
            { time "$loadgen" http://127.0.0.1:$port $game "$games" "$seconds" >/tmp/bench-row.$$ 2>&1; } 2>/tmp/bench-time.$$
            pg_after=$(cpu postgres)
            server_cpu=$(cpu_of "$server")
            groups=$(curl -s http://127.0.0.1:$port/metrics | awk '/^parlour_commit_groups_total /{g=$2} /^parlour_commit_group_appends_total /{a=$2} END{if (g>0) printf "%.1f", a/g; else print "-"}')
            kill "$server"
            wait "$server" 2>/dev/null
            line=$(tail -1 /tmp/bench-row.$$)
            rate=$(echo "$line" | sed -n 's/.*(\([0-9]*\) moves\/s).*/\1/p')
            latency=$(echo "$line" | sed -n 's/.*latency \(p50 .*\)$/\1/p')
            read -r lu ls </tmp/bench-time.$$
            ratio=$(echo "scale=2; ${rate:-0} / ${tps:-1}" | bc)
            echo "$backend group=$group games=$games: ${rate} moves/s (${ratio}x pgbench), $latency; moves per commit $groups; CPU s: server $server_cpu, Postgres $(echo "$pg_after - $pg_before" | bc), load generator $(echo "$lu + $ls" | bc)"
            rm -f /tmp/bench-row.$$ /tmp/bench-time.$$
        done
    done
done
