#!/usr/bin/env bash
# A move on a big store against one on an empty store (issue 16, target 5; docs/performance.md,
# "Big stores"): bash tools/bench-big-store.sh path/to/parlour
# 1. An empty store: a fresh database, the load generator for SECONDS_PER_ROW (default 15) at
#    BENCH_GAMES (default 16) concurrent games of BENCH_GAME (default "girl 4").
# 2. A big store: a fresh database filled with real games played by the load generator, each
#    then copied under new game ids (games, seats with fresh token hashes, events with fresh
#    feed positions, heads) until it holds at least BIG_GAMES (default 20,000) finished games
#    and BIG_EVENTS (default 2,000,000) events; VACUUM ANALYZE; then the same load as in 1.
# 3. The empty store again, so the big store's row sits between two empty ones.
# A copied game's chain begins from its original's record, so a copy would not pass the audit:
# the copies are there for their size, and no row of the benchmark reads them.
# Needs a release build of the load generator (LOADGEN overrides its path) and Postgres on
# 127.0.0.1:5432 with trust auth.
set -u
bin=$1
loadgen=${LOADGEN:-target/release/examples/loadgen}
seconds=${SECONDS_PER_ROW:-15}
game=${BENCH_GAME:-girl 4}
games=${BENCH_GAMES:-16}
want_games=${BIG_GAMES:-20000}
want_events=${BIG_EVENTS:-2000000}
port=18301
# shellcheck source=tools/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
key=$(mktemp -u)
q() { "${psql_[@]}" -d parlour_bench -At -c "$1"; }

start() {
    RUST_LOG=warn DATABASE_URL=$1 PARLOUR_SIGNING_KEY_FILE=$key \
        "$bin" --addr 127.0.0.1:$port --no-rate-limit >/dev/null 2>&1 &
    server=$!
    wait_up $port || exit 1
}

stop() {
    kill "$server"
    wait "$server" 2>/dev/null
}

row() {
    # shellcheck disable=SC2086  # the game is two words on purpose
    "$loadgen" http://127.0.0.1:$port $game "$games" "$seconds" 2>&1 | tail -1
}

# A game is finished when its view says so; the store does not say it, so ask the server.
finished_ids() {
    q "SELECT id FROM games" | while read -r id; do
        status=$(curl -s "http://127.0.0.1:$port/v1/games/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
        [ "$status" = finished ] && echo "$id"
    done
}

echo "== empty store"
start "$(fresh_pg)"
echo "empty: $(row)"
stop

echo "== big store: real games, then copies of the finished ones"
start "$(fresh_pg)"
# shellcheck disable=SC2086
"$loadgen" http://127.0.0.1:$port $game 64 20 >/dev/null 2>&1
finished_ids >/tmp/bench-finished.$$
stop
originals=$(wc -l </tmp/bench-finished.$$)
events=$(q "SELECT count(*) FROM events")
echo "played: $(q "SELECT count(*) FROM games") games ($originals finished), $events events"
# Copies of the finished games, enough for both targets.
"${psql_[@]}" -d parlour_bench -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE bench_finished (id uuid PRIMARY KEY);
\copy bench_finished FROM '/tmp/bench-finished.$$'
SQL
per_copy=$(q "SELECT count(*) FROM events WHERE game_id IN (SELECT id FROM bench_finished)")
copies=$(python3 -c "import math; print(max(math.ceil($want_games / max($originals, 1)), math.ceil($want_events / max($per_copy, 1))))")
echo "copying the $originals finished games ($per_copy events) $copies times"
for c in $(seq 1 "$copies"); do
    "${psql_[@]}" -d parlour_bench -v ON_ERROR_STOP=1 <<'SQL' || exit 1
BEGIN;
CREATE TEMP TABLE m ON COMMIT DROP AS SELECT id AS old, gen_random_uuid() AS new FROM bench_finished;
INSERT INTO games SELECT (jsonb_populate_record(NULL::games, to_jsonb(g) || jsonb_build_object('id', m.new))).* FROM games g JOIN m ON m.old = g.id;
INSERT INTO seats SELECT (jsonb_populate_record(NULL::seats, to_jsonb(s) || jsonb_build_object('game_id', m.new, 'token_hash', md5(random()::text) || md5(random()::text)))).* FROM seats s JOIN m ON m.old = s.game_id;
INSERT INTO events SELECT (jsonb_populate_record(NULL::events, to_jsonb(e) || jsonb_build_object('game_id', m.new, 'position', nextval('events_position'), 'txid', pg_current_xact_id()::text))).* FROM events e JOIN m ON m.old = e.game_id ORDER BY e.game_id, e.seq;
INSERT INTO game_heads SELECT (jsonb_populate_record(NULL::game_heads, to_jsonb(h) || jsonb_build_object('game_id', m.new))).* FROM game_heads h JOIN m ON m.old = h.game_id;
COMMIT;
SQL
done
"${psql_[@]}" -d parlour_bench -c "DROP TABLE bench_finished" -c "VACUUM ANALYZE" >/dev/null
echo "stored: $(q "SELECT count(*) FROM games") games, $(q "SELECT count(*) FROM events") events, $(q "SELECT pg_size_pretty(pg_database_size('parlour_bench'))")"
url="postgres://postgres@127.0.0.1:5432/parlour_bench?sslmode=disable"
start "$url"
echo "big: $(row)"
stop
rm -f /tmp/bench-finished.$$

echo "== empty store again"
start "$(fresh_pg)"
echo "empty: $(row)"
stop
rm -f "$key"
