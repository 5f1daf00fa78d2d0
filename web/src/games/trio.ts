/** GIRL and The CAR Game: one trick-taking engine, two themes. The HEROINE (or CAR) played
 * for, each seat's face-down lay, the last trick turned face up, and my hand to lay from. */

import type { GameEvent, Schemas } from "../api";
import { cardBack, cardRow, cardView, packStack } from "../cards";
import { h } from "../h";
import { Who, count, handOf, list, who, type GameModule, type Legal, type Table } from "./kit";

type Public = Schemas["GirlPublicView"];
type Seat = Schemas["GirlSeatView"] & { seat: number; name: string };

function board(table: Table) {
  const pub = table.view.public as Public;
  const seats = table.view.seats as Seat[];
  const exposed = pub.exposed;
  const last = pub.last_trick;
  return [
    h(
      "div",
      { class: "centre" },
      h("div", { class: "pile" }, pub.centre_pack > 0 ? packStack(pub.centre_pack, `the centre pack, ${count(pub.centre_pack, "card")}`, table.book.game) : null, h("span", null, `Centre pack: ${pub.centre_pack}`)),
      h("div", { class: "pile" }, exposed ? cardView(table.book, exposed.card, { note: "played for" }) : null, h("span", null, exposed ? `Played for, turned up by ${who(table, exposed.by)}` : "No trick under way")),
      h("div", { class: "pile" }, h("span", null, `Set aside: ${pub.set_aside}`)),
    ),
    h(
      "ul",
      { class: "lays" },
      seats.map((seat) =>
        h(
          "li",
          null,
          h("span", null, `${seat.name}: ${seat.hand} in hand, ${seat.won} won`),
          // A lay is three cards face down (the last lays may be fewer: nobody is told how many).
          seat.laid ? cardRow(`${seat.name}’s lay, face down`, [0, 1, 2].map((i) => cardBack("a face-down card", `lay-${seat.seat}-${i}`, table.book.game)), { fan: true }) : null,
        ),
      ),
    ),
    last
      ? h(
          "div",
          { class: "last" },
          h("h3", null, `Last trick, for ${table.book.name(last.heroine)}: ${last.winner !== null && last.winner !== undefined ? `${Who(table, last.winner)} won` : "nobody won"}`),
          last.lays.map((lay, seat) => cardRow(`${table.names[seat] ?? ""} laid (${count(last.points[seat] ?? 0, "point")})`, lay.map((card) => cardView(table.book, card)))).map((row, seat) => h("div", null, h("span", null, `${table.names[seat] ?? ""}: ${count(last.points[seat] ?? 0, "point")}`), row)),
        )
      : null,
  ];
}

function hand(table: Table) {
  const you = table.view.you as (Schemas["GirlPrivateView"] & { seat: number }) | null | undefined;
  if (!you) return null;
  return [
    h("h2", null, "Your hand"),
    handOf(table, you.hand),
    you.laid.length > 0 ? [h("h3", null, "Your lay, face down"), cardRow("Your lay", you.laid.map((card) => cardView(table.book, card)))] : null,
  ];
}

function narrate(event: GameEvent, table: Table): string | null {
  const data = event.data as Record<string, unknown>;
  const card = (id: unknown) => (typeof id === "string" ? table.book.name(id) : "a card");
  switch (event.type) {
    case "deal":
      return `${Who(table, data.dealer)} dealt.`;
    case "draw":
      return `${Who(table, data.seat)} turned up ${card(data.card)}.`;
    case "expose":
      return `${Who(table, data.seat)} laid ${card(data.card)} from hand to be played for.`;
    case "pass":
      return `${Who(table, data.seat)} passed.`;
    case "lay":
      return `${Who(table, data.seat)} laid ${count(Array.isArray(data.cards) ? data.cards.length : Number(data.count ?? 0), "card")} face down.`;
    case "reveal":
      return `The lays were turned face up for ${card(data.heroine)}.`;
    case "resolve":
      return data.winner !== null && data.winner !== undefined
        ? `${Who(table, data.winner)} won the trick for ${card(data.heroine)}, taking ${count(Array.isArray(data.won) ? data.won.length : 0, "card")}.`
        : `Nobody won the trick for ${card(data.heroine)}.`;
    case "game_over": {
      const scores = Array.isArray(data.scores) ? (data.scores as number[]) : [];
      return `Game over. Scores: ${scores.map((score, seat) => `${table.names[seat] ?? seat} ${score}`).join(", ")}.`;
    }
    default:
      return null;
  }
}

/** What the selected move will do: the card played for is the view's `exposed`. */
function hint(action: Legal, table: Table): string | null {
  const exposed = (table.view.public as Public).exposed;
  const forWhat = exposed ? ` to be played for ${table.book.name(exposed.card)}` : "";
  switch (action.type) {
    case "turn_up":
      return "Turns up the top card of the centre pack: a trio or a joker goes to your hand, anything else is played for.";
    case "expose":
      return typeof action.card === "string" ? `Lays ${table.book.name(action.card)} from your hand to be played for; it does not count for you.` : null;
    case "lay": {
      const picked = table.picked.get("lay") ?? [];
      return picked.length > 0 ? `Lays ${list(picked.map((id) => table.book.name(id)))} face down${forWhat}.` : `Pick the cards to lay face down${forWhat}.`;
    }
    case "pass":
      return "Passes: you have no card to lay to be played for.";
    default:
      return null;
  }
}

export const trio: GameModule = {
  board,
  hand,
  narrate,
  hint,
  verbs: { turn_up: "Turn up a card", lay: "Lay", expose: "Lay it to be played for", pass: "Pass" },
};
