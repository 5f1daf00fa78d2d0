/** History of England No. 2: the pool, completed reigns, protected Crowns, asks and their
 * answers, and the two cards a Crown's asker shows, seen only by the player asked. */

import type { GameEvent, Schemas } from "../api";
import { cardRow, cardView, packStack } from "../cards";
import { h } from "../h";
import { Who, Whose, count, handOf, who, type GameModule, type Legal, type Table } from "./kit";

type Public = Schemas["HistoryOfEnglandPublicView"];
type Seat = Schemas["HistoryOfEnglandSeatView"] & { seat: number; name: string };
type Private = Schemas["HistoryOfEnglandPrivateView"] & { seat: number };

const ANSWERS: Record<string, string> = { given: "the card was given", refused: "refused", bluff_caught: "a bluff was caught" };

function board(table: Table) {
  const pub = table.view.public as Public;
  const seats = table.view.seats as Seat[];
  const last = pub.last_ask;
  return [
    h(
      "div",
      { class: "centre" },
      h("div", { class: "pile" }, pub.pool > 0 ? packStack(pub.pool, `the pool, ${count(pub.pool, "card")}`, table.book.game) : null, h("span", null, `Pool: ${pub.pool}`)),
      h("p", null, `Series ${pub.series}. ${pub.stage.replace(/_/g, " ")}${pub.turns_left !== undefined && pub.turns_left !== null ? `, ${count(pub.turns_left, "turn")} left` : ""}.`),
    ),
    last
      ? h("p", { class: "last" }, `Last ask: ${Who(table, last.asker)} asked ${who(table, last.seat)} for ${table.book.name(last.card)}: ${ANSWERS[last.answer] ?? last.answer}${last.forfeited > 0 ? `, ${count(last.forfeited, "card")} forfeited` : ""}.`)
      : null,
    pub.protected_crowns.length > 0 ? cardRow("Protected Crowns", pub.protected_crowns.map((card) => cardView(table.book, card, { note: "protected" }))) : null,
    h(
      "ul",
      { class: "lays" },
      seats.map((seat) =>
        h(
          "li",
          null,
          h("strong", null, seat.name),
          ` ${count(seat.cards, "card")}${typeof seat.points === "number" ? `, ${count(seat.points, "point")}` : ""}`,
          seat.completed_sets && seat.completed_sets.length > 0 ? cardRow(`${seat.name}'s reigns`, seat.completed_sets.map((card) => cardView(table.book, card)), { fan: true }) : null,
          seat.hand ? cardRow(`${seat.name}'s hand, face up`, seat.hand.map((card) => cardView(table.book, card))) : null,
        ),
      ),
    ),
  ];
}

function hand(table: Table) {
  const you = table.view.you as Private | null | undefined;
  if (!you) return null;
  const shown = you.shown_to_you;
  return [
    shown
      ? h("div", { class: "shown" }, h("h3", null, `${Who(table, shown.by)} showed you these to ask for ${table.book.name(shown.crown)}`), cardRow("Shown to you", shown.cards.map((card) => cardView(table.book, card))))
      : null,
    h("h2", null, "Your hand"),
    handOf(table, you.hand),
  ];
}

function narrate(event: GameEvent, table: Table): string | null {
  const data = event.data as Record<string, unknown>;
  const card = (id: unknown) => (typeof id === "string" ? table.book.name(id) : "a card");
  switch (event.type) {
    case "deal":
      return "The cards were dealt.";
    case "asked": {
      const showing = Array.isArray(data.show) ? `, showing two cards` : "";
      const answer = data.answer === "given" ? `${who(table, data.seat)} gave it` : data.answer === "refused" ? `${who(table, data.seat)} refused` : `${who(table, data.seat)} caught a bluff${Array.isArray(data.forfeit) && data.forfeit.length > 0 ? ` and took ${count(data.forfeit.length, "card")} forfeited` : ""}`;
      return `${Who(table, data.asker)} asked ${who(table, data.seat)} for ${card(data.card)}${showing}: ${answer}.`;
    }
    case "drew":
      return `${Who(table, data.seat)} drew from the pool${typeof data.card === "string" ? ` (${card(data.card)})` : ""}.`;
    case "turn_ended":
      return data.next !== undefined && data.next !== null ? `${Whose(table, data.seat)} turn ended; ${who(table, data.next)} to ask.` : `${Whose(table, data.seat)} turn ended.`;
    case "hands_exposed":
      return "The pool is empty: every hand is laid face up.";
    default:
      return null;
  }
}

function hint(action: Legal, table: Table): string | null {
  if (action.type !== "pass") return null;
  return (table.view.public as Public).pool > 0 ? "Ends your turn: you draw the top card of the pool and the next player asks." : "Ends your turn: the next player asks.";
}

export const england: GameModule = {
  board,
  hand,
  narrate,
  hint,
  verbs: { ask: "Ask", pass: "Pass (end my turn)" },
};
