/** GOOGLY: the score, the batters at the crease, the bowler, this over, and the printed
 * scorecard (the server's own plain-text score-sheet), kept live. */

import { type GameEvent, type Schemas } from "../api";
import { cardRow, cardView } from "../cards";
import { h } from "../h";
import { handOf, sentence, type GameModule, type Table } from "./kit";

type Public = Schemas["GooglyPublicView"];

const scorecards = new Map<string, { version: number; text: Promise<string> }>();

/** The score-sheet as printed, fetched again only when the game has moved. */
function scorecard(table: Table): HTMLElement {
  const pre = h("pre", { class: "scorecard", "aria-label": "Scorecard" }, "…");
  let entry = scorecards.get(table.view.id);
  if (!entry || entry.version !== table.view.version) {
    entry = {
      version: table.view.version,
      text: fetch(`/v1/games/${table.view.id}/scorecard`, { headers: { accept: "text/plain" } }).then((response) => (response.ok ? response.text() : "")),
    };
    scorecards.set(table.view.id, entry);
  }
  void entry.text.then((text) => (pre.textContent = text));
  return pre;
}

function board(table: Table) {
  const pub = table.view.public as Public;
  const current = pub.current;
  return [
    h(
      "table",
      { class: "innings" },
      h("caption", null, pub.status),
      h("thead", null, h("tr", null, h("th", null, "Innings"), h("th", null, "Score"), h("th", null, "Overs"))),
      h(
        "tbody",
        null,
        pub.innings.map((innings) => h("tr", null, h("td", null, innings.team), h("td", null, `${innings.runs}/${innings.wickets}${innings.declared ? " dec" : ""}`), h("td", null, innings.overs))),
      ),
    ),
    pub.target !== undefined && pub.target !== null ? h("p", null, `Target: ${pub.target}`) : null,
    pub.toss ? h("p", null, `${pub.toss.winner} won the toss${pub.toss.elected ? ` and chose to ${pub.toss.elected}` : ""}.`) : null,
    current
      ? h(
          "div",
          { class: "crease" },
          h("p", null, `${current.striker.name}* ${current.striker.runs} (${current.striker.balls}) · ${current.non_striker.name} ${current.non_striker.runs} (${current.non_striker.balls})`),
          current.bowler ? h("p", null, `Bowling: ${current.bowler.name}`) : null,
          h("p", null, `Over ${current.over + 1}, ball ${current.ball_of_over}. This over: ${current.this_over.map((ball) => (ball.verdict ? ball.verdict.call : String(ball.runs))).join(" ") || "—"}`),
          current.appeal_pending ? h("p", { class: "asking" }, "How’s that? The bowler turns up a card.") : null,
        )
      : null,
    pub.last_ball
      ? h("div", { class: "last" }, h("p", null, `Last ball: ${pub.last_ball.batter} ${pub.last_ball.verdict ? pub.last_ball.verdict.call : `${pub.last_ball.runs} run${pub.last_ball.runs === 1 ? "" : "s"}`}`), cardRow("Last ball", [cardView(table.book, pub.last_ball.card), ...(pub.last_ball.verdict ? [cardView(table.book, pub.last_ball.verdict.card)] : [])]))
      : null,
    h("p", { class: "quiet" }, `Day ${pub.time.day}; ${pub.time.overs_left} overs left.`),
    h("details", { open: true }, h("summary", null, "Scorecard"), scorecard(table)),
    table.view.status === "finished" ? h("p", null, h("a", { href: "/play/googly/series", "data-link": true }, "Series: the championship table and averages")) : null,
  ];
}

function hand(table: Table) {
  const you = table.view.you as (Schemas["GooglyPrivateView"] & { seat: number }) | null | undefined;
  return you && you.hand.length > 0 ? [h("h2", null, "Your batting cards"), handOf(table, you.hand)] : null;
}

function narrate(event: GameEvent, table: Table): string | null {
  const data = event.data as Record<string, unknown>;
  const teams = (table.view.public as Public).teams;
  const team = (side: unknown) => (typeof side === "number" ? (teams[side]?.name ?? `side ${side + 1}`) : "a side");
  switch (event.type) {
    case "toss":
      return "The captains tossed.";
    case "elected":
      return `${team(data.side)} won the toss and chose to ${String(data.to)}.`;
    case "batting_order":
      return `${team(data.side)} named their batting order.`;
    case "opening_bowlers":
      return `${String(data.first)} and ${String(data.second)} open the bowling.`;
    case "bowler":
      return `${String(data.name)} bowls the next over.`;
    case "ball":
      return typeof data.card === "string" ? sentence(`Ball: ${table.book.name(data.card)}`) : "A ball was played.";
    case "verdict":
      return typeof data.card === "string" ? sentence(`How’s that? ${table.book.name(data.card)}`) : "The appeal was answered.";
    case "declared":
      return `${team(data.side)} declared.`;
    case "follow_on":
      return data.enforced ? "The follow-on was enforced." : "The follow-on was not enforced.";
    case "extra_time":
      return `${team(data.side)} ${data.claimed ? "claimed" : "did not claim"} extra time.`;
    default:
      return null;
  }
}

export const googly: GameModule = {
  board,
  hand,
  narrate,
  verbs: {
    elect: "Choose to",
    "elect:bat": "Bat first",
    "elect:field": "Field first",
    batting_order: "Send the batting order",
    opening_bowlers: "Name the opening bowlers",
    accept_defaults: "Accept the defaults",
    "follow_on:true": "Enforce the follow-on",
    "follow_on:false": "Don't enforce the follow-on",
    "extra_time:true": "Claim extra time",
    "extra_time:false": "No extra time",
    bowler: "Bowler:",
    play: "Play the next ball",
    play_on: "Let the scorer play on for me",
    declare: "Declare",
    bowl: "Bowl (turn up a bowling card)",
  },
};
