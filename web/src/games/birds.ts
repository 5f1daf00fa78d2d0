/** British Birds: the row of face-up cards to pick up from, sets laid, Owls played, asks
 * and their answers. */

import type { GameEvent, Schemas } from "../api";
import { cardRow, cardView, packStack } from "../cards";
import { h } from "../h";
import { Who, cardAction, count, handOf, verb, who, type GameModule, type Legal, type Move, type Table } from "./kit";

type Public = Schemas["BritishBirdsPublicView"];
type Seat = Schemas["BritishBirdsSeatView"] & { seat: number; name: string };

function board(table: Table) {
  const pub = table.view.public as Public;
  const seats = table.view.seats as Seat[];
  const asked = pub.asked;
  const last = pub.last_ask;
  return [
    h(
      "div",
      { class: "centre" },
      h("div", { class: "pile" }, pub.pack_size > 0 ? packStack(pub.pack_size, `the pack, ${count(pub.pack_size, "card")}`, table.book.game) : null, h("span", null, `Pack: ${pub.pack_size}`)),
      h("div", null, h("h3", null, "The row"), cardRow("The row", pub.row.map((card) => {
        if (!card) return h("span", { class: "card empty", "aria-label": "an empty place" });
        const pick = cardAction(table, card, ["pick_up"]);
        return cardView(table.book, card, pick ? { onPick: () => table.act(pick as Move), note: "pick up" } : {});
      }))),
    ),
    asked ? h("p", { class: "asking" }, `${Who(table, asked.asker)} ${verb(table, asked.asker, "ask", "asks")} ${who(table, asked.seat)} for ${table.book.name(asked.card)}.`) : null,
    last ? h("p", { class: "last" }, `Last ask: ${Who(table, last.asker)} asked ${who(table, last.seat)} for ${table.book.name(last.card)}: ${last.answer === "owl" ? "an Owl was played" : last.answer === "handed_over" ? "handed over" : "not held"}.`) : null,
    h(
      "ul",
      { class: "lays" },
      seats.map((seat) =>
        h(
          "li",
          null,
          h("strong", null, seat.name), ` ${count(seat.hand_size, "card")}, ${count(seat.points, "point")}${seat.total !== undefined ? ` (${seat.total} in the series)` : ""}, Owls played ${seat.owls_played}, sets: ${seat.sets.map((set) => set.toUpperCase()).join(" ") || "none"}`,
        ),
      ),
    ),
    pub.owls.length > 0 ? cardRow("Owls played", pub.owls.map((owl) => cardView(table.book, owl.card, { note: `played by ${who(table, owl.seat)}` }))) : null,
    h("p", { class: "quiet" }, `Quiet turns: ${pub.quiet_turns} of ${pub.quiet_limit}. Game ${pub.game}${pub.play_to ? `, playing to ${pub.play_to}` : ""}.`),
  ];
}

function hand(table: Table) {
  const you = table.view.you as (Schemas["BritishBirdsPrivateView"] & { seat: number }) | null | undefined;
  return you ? [h("h2", null, "Your hand"), handOf(table, you.hand)] : null;
}

function narrate(event: GameEvent, table: Table): string | null {
  const data = event.data as Record<string, unknown>;
  const card = (id: unknown) => (typeof id === "string" ? table.book.name(id) : "a card");
  switch (event.type) {
    case "deal":
      return `The cards were dealt; ${who(table, data.first)} ${data.first === table.me ? "play" : "plays"} first.`;
    case "pick_up":
      return `${Who(table, data.seat)} picked up ${card(data.card)}${data.replacement ? `; ${card(data.replacement)} was turned up in its place` : ""}.`;
    case "ask":
      return `${Who(table, data.seat)} asked ${who(table, data.asked)} for ${card(data.card)}.`;
    case "hand_over":
      return `${Who(table, data.from)} handed ${card(data.card)} to ${who(table, data.to)}.`;
    case "owl":
      return `${Who(table, data.seat)} played an Owl (${card(data.owl)}) to keep ${card(data.card)}.`;
    case "not_held":
      return `${Who(table, data.seat)} ${verb(table, data.seat, "do", "does")} not hold ${card(data.card)}.`;
    case "set_laid":
      return `${Who(table, data.seat)} laid set ${String(data.set ?? "").toUpperCase()}.`;
    case "owl_preference":
      return `${Who(table, data.seat)} now ${verb(table, data.seat, "answer", "answers")} asks: ${String(data.preference ?? "").replace(/_/g, " ")}.`;
    case "game_over": {
      const points = Array.isArray(data.points) ? (data.points as number[]) : [];
      return `Game over. Points: ${points.map((score, seat) => `${table.names[seat] ?? seat} ${score}`).join(", ")}.`;
    }
    default:
      return null;
  }
}

const NOW: Record<string, string> = { ask_me: "you choose each time", always_hand_over: "you always hand over", always_play_owl: "you always play an Owl" };

const PREFERENCES: Record<string, string> = {
  ask_me: "From now on, asked for a card you hold while you have an Owl, you choose each time.",
  always_hand_over: "From now on, asked for a card you hold, you hand it over at once and keep your Owls.",
  always_play_owl: "From now on, asked for a card you hold, you play an Owl whenever you have one.",
};

/** What the selected move will do; an answer names the ask it answers. */
function hint(action: Legal, table: Table): string | null {
  const asked = (table.view.public as Public).asked;
  const wanted = asked ? table.book.name(asked.card) : "the card";
  const asker = asked ? who(table, asked.asker) : "the asker";
  switch (action.type) {
    case "pick_up":
      return typeof action.card === "string" ? `Picks up ${table.book.name(action.card)} from the row, ending your turn.` : null;
    case "hand_over":
      return `Hands ${wanted} to ${asker}.`;
    case "play_owl":
      return `Plays an Owl to keep ${wanted}; ${asker}’s turn ends.`;
    case "not_held":
      return `Tells ${asker} you do not hold ${wanted}.`;
    case "set_owl_preference":
      return PREFERENCES[String(action.preference)] ?? null;
    default:
      return null;
  }
}

export const birds: GameModule = {
  board,
  hand,
  narrate,
  hint,
  standing: {
    types: ["set_owl_preference"],
    heading: "Standing orders for your Owls",
    explain: "Not a move: how your Owls answer an ask for a card you hold, from now on, whoever’s turn it is. Change it at any time.",
    now: (table) => {
      const mine = (table.view.seats as Seat[]).find((seat) => seat.seat === table.me)?.owl_preference;
      return mine ? `Now: ${NOW[mine] ?? mine.replace(/_/g, " ")}.` : null;
    },
  },
  verbs: {
    pick_up: "Pick up",
    ask: "Ask",
    hand_over: "Hand over",
    play_owl: "Play an Owl",
    not_held: "I don't hold it",
    set_owl_preference: "Owl preference",
    "set_owl_preference:ask_me": "Always ask me before playing an Owl",
    "set_owl_preference:always_hand_over": "Always hand over",
    "set_owl_preference:always_play_owl": "Always play an Owl",
  },
};
