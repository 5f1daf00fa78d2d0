#!/usr/bin/env python3
"""A small example client: plays one game of Parlour to the end over the REST API.

    python3 tools/play.py [--server http://127.0.0.1:8080] [--game girl] [--players N] [--seed N]

It creates the game, then, for whichever seat the game waits for, reads that seat's view with
its own token and sends one of the seat's legal actions (a random one; `{"choose": k, "from":
[...]}` in a legal action means "k distinct items of this list"), guarded by `If-Match` so a
move meant for an older state is refused instead of applied. At the end it prints the result
and the audit's verdict. Standard library only; see README.md and docs/integrators.md.
"""

import argparse
import json
import random
import sys
import urllib.error
import urllib.request


def call(server, method, path, token=None, body=None, headers=None):
    """One request; returns (status, headers, parsed JSON body or None)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, response.headers, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, error.headers, json.loads(text) if text else None


def instantiate(template, rng):
    """A complete body from a legal-action template: each choice filled with distinct items."""
    if isinstance(template, dict):
        if set(template) == {"choose", "from"} and isinstance(template["from"], list):
            pool = list(template["from"])
            rng.shuffle(pool)
            return pool[: template["choose"]]
        return {key: instantiate(value, rng) for key, value in template.items()}
    if isinstance(template, list):
        return [instantiate(item, rng) for item in template]
    return template


def play(server, game, players, seed, max_moves=100_000):
    rng = random.Random(seed)
    status, _, created = call(
        server,
        "POST",
        "/v1/games",
        body={"game": game, "players": [{"name": f"Player {i + 1}"} for i in range(players)]},
    )
    if status != 201:
        raise SystemExit(f"create answered {status}: {created}")
    game_id = created["id"]
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    print(f"created {game} game {game_id} for {players}")
    moves = 0
    while moves < max_moves:
        # Anyone may look; a spectator's view says whose move it is.
        _, _, table = call(server, "GET", f"/v1/games/{game_id}")
        if table["status"] == "finished":
            break
        seat = table["to_act"][0]
        _, headers, view = call(server, "GET", f"/v1/games/{game_id}", token=tokens[seat])
        action = instantiate(rng.choice(view["legal_actions"]), rng)
        status, _, answer = call(
            server,
            "POST",
            f"/v1/games/{game_id}/actions",
            token=tokens[seat],
            body=action,
            headers={"If-Match": headers["ETag"]},
        )
        if status == 412:
            continue  # someone moved in between: look again
        if status != 200:
            raise SystemExit(f"seat {seat}'s move {action} answered {status}: {answer}")
        moves += 1
    else:
        raise SystemExit(f"the game did not end within {max_moves} moves")
    _, _, final = call(server, "GET", f"/v1/games/{game_id}")
    _, _, audit = call(server, "GET", f"/v1/games/{game_id}/audit")
    print(f"finished after {moves} moves: {json.dumps(final['result'])}")
    clean = audit["chain_ok"] and audit["replay_ok"] and audit["seed_ok"] and not audit["failures"]
    print(f"audit: {'clean' if clean else audit}")
    return 0 if clean else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--game", default="girl")
    parser.add_argument("--players", type=int, help="default: the fewest the game allows")
    parser.add_argument("--seed", type=int, default=1, help="seeds this client's choices only")
    args = parser.parse_args()
    server = args.server.rstrip("/")
    players = args.players
    if players is None:
        status, _, entry = call(server, "GET", f"/v1/catalog/{args.game}")
        if status != 200:
            raise SystemExit(f"the catalogue has no game {args.game!r}: {entry}")
        players = entry["min_players"]
    sys.exit(play(server, args.game, players, args.seed))


if __name__ == "__main__":
    main()
