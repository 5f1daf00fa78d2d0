#!/usr/bin/env python3
"""Checks Parlour's webhooks with an implementation that is not Parlour's: the Standard
Webhooks reference library (`standardwebhooks` on PyPI) verifies every message a live server
sends while two accounts play a game of GIRL to its end.

Usage: webhooks-verify.py BASE_URL   (a server started with PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1,
so that it may send to this script's receiver on 127.0.0.1; tools/webhooks-verify.sh does it)
"""

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

EVENTS = [
    "game.started",
    "game.your_turn",
    "game.deadline_near",
    "game.timed_out",
    "game.finished",
    "invitation.accepted",
]
received = []


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        received.append((dict(self.headers.items()), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def call(base, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path}: {error.code} {error.read().decode()}")
    return json.loads(text) if text else None


def instantiate(template):
    """A legal-action template with each {"choose": k, "from": [...]} filled by its first k."""
    if isinstance(template, dict):
        if set(template) == {"choose", "from"}:
            return template["from"][: template["choose"]]
        return {k: instantiate(v) for k, v in template.items()}
    if isinstance(template, list):
        return [instantiate(v) for v in template]
    return template


def main():
    base = sys.argv[1].rstrip("/")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{server.server_address[1]}/hooks"

    ann = call(base, "POST", "/v1/accounts", body={"name": "Ann"})["token"]["secret"]
    bea = call(base, "POST", "/v1/accounts", body={"name": "Bea"})["token"]["secret"]
    created = call(base, "POST", "/v1/webhooks", ann, {"url": hook_url, "events": EVENTS})
    secret = created["secret"]
    hosted = call(
        base,
        "POST",
        "/v1/me/games",
        ann,
        {"game": "girl", "seats": [{"kind": "me"}, {"kind": "anyone"}]},
    )
    game = hosted["id"]
    call(base, "POST", f"/v1/games/{game}/seats/1/claim", bea, {})
    tokens = [ann, bea]
    for _ in range(500):
        view = call(base, "GET", f"/v1/games/{game}")
        if view["status"] == "finished":
            break
        seat = view["to_act"][0]
        mine = call(base, "GET", f"/v1/games/{game}", tokens[seat])
        call(base, "POST", f"/v1/games/{game}/actions", tokens[seat], instantiate(mine["legal_actions"][0]))
    else:
        raise SystemExit("the game did not end")

    deadline = time.time() + 60
    while time.time() < deadline:
        if any(json.loads(body).get("type") == "game.finished" for _, body in received):
            break
        time.sleep(0.2)
    webhook = Webhook(secret)
    seen = set()
    for headers, body in received:
        # Raises WebhookVerificationError on a bad signature, a missing header or a stale time.
        payload = webhook.verify(body, headers)
        assert payload["data"]["id"] == game, payload
        seen.add(payload["type"])
    missing = {"game.started", "game.your_turn", "game.finished", "invitation.accepted"} - seen
    if missing:
        raise SystemExit(f"no {sorted(missing)} among {sorted(seen)}")
    ids = [headers["webhook-id"] for headers, _ in received]
    print(f"{len(received)} messages ({', '.join(sorted(seen))}) verified by standardwebhooks; {len(set(ids))} ids")


if __name__ == "__main__":
    main()
