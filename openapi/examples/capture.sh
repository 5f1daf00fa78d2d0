#!/usr/bin/env bash
# Captures the document's examples as real answers of a server (the README's GIRL game):
#
#   bash openapi/examples/capture.sh http://127.0.0.1:8080
#
# then rebuild and regenerate openapi/openapi.json. tests/api/contract.rs checks every example
# against its schema, so a change of the DTOs that makes one stale fails there.
set -euo pipefail
base="${1:-http://127.0.0.1:8080}"
cd "$(dirname "$0")"
json='content-type: application/json'

jq -n '{"game":"girl","players":[{"name":"Ann"},{"name":"Bea"}],
        "seed":"4242424242424242424242424242424242424242424242424242424242424242"}' \
    >create-request.json
curl -fsS -X POST "$base/v1/games" -H "$json" -d @create-request.json | jq . >create-201.json
id="$(jq -r .id create-201.json)"
ann="$(jq -r '.seats[0].token' create-201.json)"
bea="$(jq -r '.seats[1].token' create-201.json)"

curl -fsS "$base/v1/games/$id" -H "Authorization: Bearer $ann" | jq . >view-200.json
jq -n '{"type":"turn_up"}' >action-request.json
curl -fsS -X POST "$base/v1/games/$id/actions" -H "Authorization: Bearer $ann" -H "$json" \
    -H 'If-Match: "1"' -d @action-request.json | jq . >action-200.json
# Turning up again while a HEROINE is played for breaks a rule (422); laying twice is out of
# turn (409).
curl -sS -X POST "$base/v1/games/$id/actions" -H "Authorization: Bearer $ann" -H "$json" \
    -d '{"type":"turn_up"}' | jq . >action-422.json
curl -fsS -X POST "$base/v1/games/$id/actions" -H "Authorization: Bearer $ann" -H "$json" \
    -d '{"type":"lay","cards":["trio-01","trio-15","trio-08"]}' >/dev/null
curl -sS -X POST "$base/v1/games/$id/actions" -H "Authorization: Bearer $ann" -H "$json" \
    -d '{"type":"lay","cards":["trio-09","trio-26","trio-30"]}' | jq . >action-409.json
curl -fsS "$base/v1/games/$id/events" -H "Authorization: Bearer $bea" | jq . >events-200.json
echo "captured the examples of game $id"
