"""A typed Python program against Parlour: plays a two-player GIRL game to its end through the
client openapi-python-client generates from openapi/openapi.json (see README.md).

    PYTHONPATH=generated python play.py http://127.0.0.1:8080

It creates the game, then, for whichever seat is to act, reads the game with that seat's token,
turns one of its legal actions into a move (`{"choose": k, "from": [...]}` becomes k distinct
cards of the list) and sends it, guarded by `If-Match`, until the game is over. It prints the
outcome, read through the GIRL view's own types, and the audit's verdict. Every request and
answer goes through the generated functions and models; `mypy --strict` checks this file.
Exits non-zero if anything is refused or not as the document says.
"""

from __future__ import annotations

import random
import sys
from typing import NoReturn, TypeVar

from parlour_client import AuthenticatedClient, Client
from parlour_client.api.games import create_game, get_game, get_game_audit, post_action
from parlour_client.models import (
    AuditReport,
    GirlActionType0,
    GirlActionType1,
    GirlActionType2,
    GirlActionType3,
    GirlCreatedGame,
    GirlLegalActionType0,
    GirlLegalActionType1,
    GirlLegalActionType2,
    GirlLegalActionType3,
    GirlNewGame,
    GirlNewGameGame,
    GirlOutcome,
    GirlView,
    GirlViewGame,
    NewPlayer,
    Problem,
    Status,
)
from parlour_client.types import Response

GirlAction = GirlActionType0 | GirlActionType1 | GirlActionType2 | GirlActionType3
GirlLegalAction = (
    GirlLegalActionType0 | GirlLegalActionType1 | GirlLegalActionType2 | GirlLegalActionType3
)

MAX_MOVES = 10_000
T = TypeVar("T")


def fail(what: str, answer: object = None) -> NoReturn:
    detail = ""
    if isinstance(answer, Problem):
        detail = f": {answer.status} {answer.type_} {answer.title}"
        if isinstance(answer.detail, str):
            detail += f" ({answer.detail})"
    elif answer is not None:
        detail = f": {answer!r}"
    print(f"play: {what}{detail}", file=sys.stderr)
    sys.exit(1)


def move_from(legal: GirlLegalAction, rng: random.Random) -> GirlAction:
    """A legal action made into a move: a `{choose: k, from}` becomes k distinct of those cards."""
    if isinstance(legal, GirlLegalActionType0):
        return GirlActionType0(type_=legal.type_)
    if isinstance(legal, GirlLegalActionType1):
        return GirlActionType1(
            type_=legal.type_, cards=rng.sample(legal.cards.from_, legal.cards.choose)
        )
    if isinstance(legal, GirlLegalActionType2):
        return GirlActionType2(type_=legal.type_, card=legal.card)
    return GirlActionType3(type_=legal.type_)


def girl_view(answer: Response[T], what: str) -> GirlView:
    """The answer's body narrowed to a GIRL view: a view says which game it is of."""
    view = answer.parsed
    if answer.status_code != 200 or not isinstance(view, GirlView):
        fail(f"{what} answered {answer.status_code}", view)
    if view.game is not GirlViewGame.GIRL:
        fail(f"{what} is a view of {view.game}")
    return view


def play(server: str, seed: int) -> int:
    rng = random.Random(seed)
    body = GirlNewGame(
        game=GirlNewGameGame.GIRL, players=[NewPlayer(name="Ann"), NewPlayer(name="Bea")]
    )
    with Client(base_url=server, raise_on_unexpected_status=True) as anyone:
        created = create_game.sync_detailed(client=anyone, body=body)
    game = created.parsed
    if created.status_code != 201 or not isinstance(game, GirlCreatedGame):
        fail(f"creating the game answered {created.status_code}", game)
    game_id = str(game.id)
    names = ", ".join(f"{seat.seat}: {seat.name}" for seat in game.seats)
    print(f"created GIRL game {game_id} (version {game.version}), seats {names}")

    seats = {
        seat.seat: AuthenticatedClient(
            base_url=server, token=seat.token, raise_on_unexpected_status=True
        )
        for seat in game.seats
    }
    moves = refused = 0
    try:
        while True:
            # Any seat's view says whose move it is.
            table = girl_view(get_game.sync_detailed(game_id, client=seats[0]), "reading the game")
            if table.status is Status.FINISHED:
                break
            if moves + refused >= MAX_MOVES:
                fail(f"the game did not end within {MAX_MOVES} tries")
            if not table.to_act:
                fail(f"nobody is to act at version {table.version} ({table.status})")
            seat = table.to_act[0]
            client = seats[seat]
            read = get_game.sync_detailed(game_id, client=client)
            view = girl_view(read, f"seat {seat}'s view")
            if not view.legal_actions:
                fail(f"seat {seat} is to act but has no legal action")
            action = move_from(rng.choice(view.legal_actions), rng)
            etag = read.headers.get("ETag", f'"{view.version}"')
            answer = post_action.sync_detailed(
                game_id,
                client=client,
                body=action,
                if_match=etag,
                idempotency_key=f"play-{game_id}-{view.version}",
            )
            if answer.status_code == 412:
                refused += 1  # someone moved in between: look again
                continue
            after = girl_view(answer, f"seat {seat}'s move {action.to_dict()}")
            if after.version <= view.version:
                fail(f"the version did not move on from {view.version}")
            moves += 1

        final = girl_view(get_game.sync_detailed(game_id, client=seats[0]), "the final view")
        outcome = final.result
        # The result is the game's own outcome, or a table's (resignation, ...): narrow it.
        if not isinstance(outcome, GirlOutcome):
            fail("the finished game has no GIRL outcome", outcome)
        print(f"finished after {moves} moves ({refused} stale) at version {final.version}")
        for seat_number, score in enumerate(outcome.scores):
            print(
                f"  seat {seat_number}: won {outcome.won[seat_number]}, "
                f"{outcome.in_hand[seat_number]} left in hand, score {score}"
            )
        winners = " and ".join(str(winner) for winner in outcome.winners)
        print(f"  winner(s): seat {winners}; {outcome.left_in_pack} never turned up")

        audited = get_game_audit.sync_detailed(game_id, client=seats[0])
        audit = audited.parsed
        if audited.status_code != 200 or not isinstance(audit, AuditReport):
            fail(f"the audit answered {audited.status_code}", audit)
        clean = audit.chain_ok and audit.replay_ok and audit.seed_ok is True and not audit.failures
        if not clean:
            fail("the audit is not clean", audit.to_dict())
        print(f"audit: clean ({audit.events} events, seed revealed and checked)")
    finally:
        for seat_client in seats.values():
            seat_client.get_httpx_client().close()
    return 0


def main() -> None:
    server = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    sys.exit(play(server, seed))


if __name__ == "__main__":
    main()
