#!/usr/bin/env bash
# Cold games (issue 16): a move on a game the server holds in memory against one it must load
# first (after a restart, after eviction), for every game and a long GOOGLY match with
# snapshots on and off; then resident memory per cached game, and a store of many games served
# under a budget. On Postgres (127.0.0.1:5432, trust auth), one server at a time on 127.0.0.1.
# docs/performance.md, "Cold games", has the figures and what they say.
#
#   cargo build --release -p parlour --bin parlour --example coldgen
#   bash tools/bench-cold.sh [path/to/parlour] [path/to/coldgen]
#
# BENCH_GAMES sets the games measured per row (default 40), BENCH_LONG the long matches
# (default 20), BENCH_MANY the games of the last part (default 100000), BENCH_PARTS which
# parts run (default "moves rss many").
set -u
target=${CARGO_TARGET_DIR:-target}
bin=${1:-$target/release/parlour}
coldgen=${2:-$target/release/examples/coldgen}
port=18091
base=http://127.0.0.1:$port
work=$(mktemp -d)
db=parlour_cold
url=postgres://postgres@127.0.0.1:5432/$db?sslmode=disable
games=${BENCH_GAMES:-40}
long=${BENCH_LONG:-20}
many=${BENCH_MANY:-100000}
parts=${BENCH_PARTS:-moves rss many}
server=

start() {
    RUST_LOG=warn DATABASE_URL=$url PARLOUR_SIGNING_KEY_FILE=$work/key \
        "$bin" --addr 127.0.0.1:$port --no-rate-limit "$@" >>"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
        curl -sf "$base/readyz" >/dev/null && return
        sleep 0.1
    done
    echo "the server did not start: $(tail -5 "$work/server.log")"
    exit 1
}
stop() {
    kill "$server"
    wait "$server" 2>/dev/null
}
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
metric() { curl -s "$base/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db" >/dev/null
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $db" >/dev/null
echo "work: $work"

if [[ " $parts " == *" moves "* ]]; then
    start
    # Games that push the others out of a small cache: 2,000 short GIRL games.
    "$coldgen" setup $base girl 2 2000 0 "$work/filler"
    # game, players, games, entries before the measured move (mid-game), options
    rows=(
        "girl 2 $games 12 {}"
        "car 3 $games 12 {}"
        "british-birds 3 $games 20 {}"
        "history-of-england 3 $games 20 {}"
        "googly 2 $games 60 {}"
        "googly 2 $long 400 {}"
    )
    for i in "${!rows[@]}"; do
        read -r game players n entries options <<<"${rows[$i]}"
        # GOOGLY is played without declarations, preferences or playing on, which would end
        # a random match within a few hundred entries: a long match is a whole one.
        if [ "$game" = googly ]; then export COLDGEN_AVOID=declare,prefer,play_on; else unset COLDGEN_AVOID; fi
        "$coldgen" setup $base "$game" "$players" "$n" "$entries" "$work/row$i" "$options"
    done
    stop
    for i in "${!rows[@]}"; do
        read -r game players n entries options <<<"${rows[$i]}"
        if [ "$game" = googly ]; then export COLDGEN_AVOID=declare,prefer,play_on; else unset COLDGEN_AVOID; fi
        label="$game ($entries entries)"
        start
        "$coldgen" touch $base "$work/row$i" >/dev/null
        echo "== $label warm: $("$coldgen" moves $base "$work/row$i")"
        stop
        start
        echo "== $label cold after a restart: $("$coldgen" moves $base "$work/row$i")"
        stop
        # A 2 MiB budget holds about a thousand short games at the cache's estimate (2 KiB
        # and 112 bytes an entry) and every measured row: the 2,000 fillers push them out.
        start --cache-budget-mb 2
        "$coldgen" touch $base "$work/row$i" >/dev/null
        echo "== $label warm, 2 MiB budget: $("$coldgen" moves $base "$work/row$i")"
        "$coldgen" touch $base "$work/filler" >/dev/null
        echo "== $label cold after eviction: $("$coldgen" moves $base "$work/row$i")"
        stop
        if [ "$entries" -ge 400 ]; then
            start --snapshot-every 0
            echo "== $label cold after a restart, snapshots off: $("$coldgen" moves $base "$work/row$i")"
            stop
            start
            echo "== $label cold after a restart, snapshots on: $("$coldgen" moves $base "$work/row$i")"
            stop
        fi
    done
fi

if [[ " $parts " == *" rss "* ]]; then
    # Resident memory per cached game: load N games into a server with room for all of them.
    start
    "$coldgen" setup $base girl 2 10000 12 "$work/rss-girl" >/dev/null
    COLDGEN_AVOID=declare,prefer,play_on "$coldgen" setup $base googly 2 100 400 "$work/rss-googly" >/dev/null
    stop
    for set in rss-girl rss-googly; do
        start --cache-budget-mb 4096
        sleep 1
        before=$(rss_kib)
        "$coldgen" touch $base "$work/$set" >/dev/null
        sleep 1
        after=$(rss_kib)
        n=$(wc -l <"$work/$set")
        echo "== rss $set: $n games, VmRSS $before -> $after KiB: $(( (after - before) * 1024 / n )) bytes a game; estimate $(metric parlour_cache_bytes) bytes in all"
        stop
    done
fi

if [[ " $parts " == *" many "* ]]; then
    # Many active games in the store, every one touched, under a 64 MiB budget and with room
    # for all: resident memory sampled every second.
    start
    "$coldgen" setup $base girl 2 "$many" 4 "$work/many"
    stop
    echo "== store: $(psql -h 127.0.0.1 -U postgres -d $db -tAc 'SELECT count(*) FROM games') games"
    for budget in 64 4096; do
        start --cache-budget-mb $budget
        peak=0
        (
            while kill -0 "$server" 2>/dev/null; do
                awk '/^VmRSS/ {print $2}' "/proc/$server/status" 2>/dev/null
                sleep 1
            done
        ) >"$work/rss-$budget" &
        sampler=$!
        "$coldgen" touch $base "$work/many" 32
        sleep 1
        peak=$(sort -n "$work/rss-$budget" | tail -1)
        echo "== many, budget $budget MiB: peak VmRSS $peak KiB, now $(rss_kib) KiB; games cached $(metric parlour_games_cached), estimate $(metric parlour_cache_bytes) bytes"
        stop
        kill "$sampler" 2>/dev/null
        wait "$sampler" 2>/dev/null
    done
fi
