#!/usr/bin/env bash
# The inbox of an account with a long history against a new account's (issue 39;
# docs/performance.md, "The inbox and a long history"): bash tools/bench-inbox.sh path/to/parlour
# On a fresh Postgres database, Ann plays HISTORY (default 10,000) games to their end (each
# hosted, its second seat taken by Bea, then resigned: real games, through the API), and both
# Ann and Nia, a new account, then have two games in progress. Each account's inbox is then
# read REQUESTS (default 300) times, one request after another on one connection: the live
# games (`?status=active`) and the first page (no filter). Prints, for each, the median and
# 99th percentile latency and the size of the answer.
# Needs Postgres on 127.0.0.1:5432 with trust auth.
set -u
bin=$1
history=${HISTORY:-10000}
requests=${REQUESTS:-300}
port=18302
# shellcheck source=tools/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
key=$(mktemp -u)
RUST_LOG=warn DATABASE_URL=$(fresh_pg) PARLOUR_SIGNING_KEY_FILE=$key \
    "$bin" --addr 127.0.0.1:$port --no-rate-limit >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$key"' EXIT
wait_up $port || exit 1

python3 - "$port" "$history" "$requests" <<'PY'
import http.client, json, statistics, sys, time

port, history, requests = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port)

def call(method, path, token=None, body=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    res = conn.getresponse()
    data = res.read()
    if res.status >= 400:
        raise SystemExit(f"{method} {path}: {res.status} {data[:200]!r}")
    return data

def account(name):
    return json.loads(call("POST", "/v1/accounts", body={"name": name}))["token"]["secret"]

def game(host, guest, end):
    hosted = json.loads(call("POST", "/v1/me/games", host,
                             {"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]}))
    call("POST", f"/v1/games/{hosted['id']}/seats/1/claim", guest, {})
    if end:
        call("POST", f"/v1/games/{hosted['id']}/resign", host, {})

ann, bea, nia = account("Ann"), account("Bea"), account("Nia")
start = time.time()
for i in range(history):
    game(ann, bea, True)
    if (i + 1) % 1000 == 0:
        print(f"  {i + 1} finished games for Ann ({time.time() - start:.0f} s)", file=sys.stderr)
for host in (ann, nia):
    for _ in range(2):
        game(host, bea, False)

for path in ("/v1/me/games?status=active", "/v1/me/games"):
    for name, token in (("Ann", ann), ("Nia", nia)):
        call("GET", path, token)  # once to warm the cache, as a player's next look would be
        times, size = [], 0
        for _ in range(requests):
            t = time.perf_counter()
            size = len(call("GET", path, token))
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
        print(f"{path:30} {name:3}: p50 {statistics.median(times):6.2f} ms, "
              f"p99 {p99:6.2f} ms, {size:6} bytes")
PY
