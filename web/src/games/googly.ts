/** GOOGLY: the score, the batters at the crease, the bowler, this over, and the printed
 * scorecard (the server's own plain-text score-sheet), kept live. */

import { type GameEvent, type Schemas } from "../api";
import { cardRow, cardView } from "../cards";
import { h } from "../h";
import { handOf, sentence, type GameModule, type Table } from "./kit";

type Public = Schemas["GooglyPublicView"];

/** The score-sheet as the server keeps it: its figures, and the same printed as text. */
interface Sheet {
  scorecard: { innings?: InningsSheet[] };
  text: string;
}

interface InningsSheet {
  team: string;
  number: number;
  batting: { name: string; how_out: { status: string; text: string }; runs: number; balls: number; fours: number; sixes: number }[];
  leg_byes: number;
  extras: number;
  total: number;
  wickets: number;
  overs: string;
  declared: boolean;
  fall_of_wickets: { wicket: number; runs: number; batter: string; over: string }[];
  bowling: { name: string; overs: string; maidens: number; runs: number; wickets: number }[];
}

const scorecards = new Map<string, { version: number; sheet: Promise<Sheet | null> }>();

/** A table of figures: the header row and the names' column stay in view as it scrolls. */
function sheetTable(label: string, head: string[], rows: (string | number)[][]): HTMLElement {
  return h(
    "div",
    { class: "sheet-scroll", tabindex: 0, role: "region", "aria-label": label },
    h(
      "table",
      { class: "sheet" },
      h("thead", null, h("tr", null, head.map((cell) => h("th", { scope: "col" }, cell)))),
      h("tbody", null, rows.map((row) => h("tr", null, row.map((cell, i) => (i === 0 ? h("th", { scope: "row" }, String(cell)) : h("td", { class: i === 1 && head[1] === "How out" ? "how" : undefined }, String(cell))))))),
    ),
  );
}

const ORDINAL = ["first", "second", "third", "fourth"];

function inningsSheet(card: InningsSheet): HTMLElement {
  const title = `${card.team}, ${ORDINAL[card.number - 1] ?? ""} innings: ${card.total}/${card.wickets}${card.declared ? " dec" : ""} (${card.overs} overs)`;
  const batted = card.batting.filter((line) => line.how_out.status !== "did not bat");
  return h(
    "section",
    { class: "innings-sheet" },
    h("h4", null, title),
    sheetTable(`${card.team} batting`, ["Batsman", "How out", "R", "B", "4s", "6s"], [
      ...batted.map((line) => [line.name, line.how_out.text, `${line.runs}${line.how_out.status === "out" ? "" : "*"}`, line.balls, line.fours, line.sixes]),
      ["Extras", `(lb ${card.leg_byes})`, card.extras, "", "", ""],
      ["Total", `${card.wickets} wkts, ${card.overs} ov`, card.total, "", "", ""],
    ]),
    card.fall_of_wickets.length > 0 ? h("p", null, `Fall of wickets: ${card.fall_of_wickets.map((fall) => `${fall.wicket}-${fall.runs} (${fall.batter}, ${fall.over} ov)`).join(", ")}`) : null,
    card.bowling.length > 0 ? sheetTable(`${card.team} innings, bowling`, ["Bowling", "O", "M", "R", "W"], card.bowling.map((line) => [line.name, line.overs, line.maidens, line.runs, line.wickets])) : null,
  );
}

/** The score-sheet, fetched again only when the game has moved: tables to read on any
 * screen, and the server's printed text (what a scorer would hand over) below them. */
function scorecard(table: Table): HTMLElement {
  const tables = h("div", { class: "sheets" }, "…");
  const pre = h("pre", { class: "scorecard", "aria-label": "Scorecard" }, "…");
  let entry = scorecards.get(table.view.id);
  if (!entry || entry.version !== table.view.version) {
    entry = {
      version: table.view.version,
      sheet: fetch(`/v1/games/${table.view.id}/scorecard`, { headers: { accept: "application/json" } }).then((response) => (response.ok ? (response.json() as Promise<Sheet>) : null)),
    };
    scorecards.set(table.view.id, entry);
  }
  void entry.sheet.then((sheet) => {
    pre.textContent = sheet?.text ?? "";
    tables.replaceChildren(...(sheet?.scorecard.innings ?? []).map(inningsSheet));
    if (!sheet?.scorecard.innings?.length) tables.textContent = "No innings yet.";
  });
  return h("div", { class: "scoresheet" }, tables, h("details", null, h("summary", null, "The printed score-sheet"), pre));
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
          // The over's cards as they fell: each batting card, and the bowling card that answered an appeal.
          current.this_over.length > 0 ? cardRow("This over’s cards", current.this_over.flatMap((ball) => [cardView(table.book, ball.card), ...(ball.verdict ? [cardView(table.book, ball.verdict.card)] : [])])) : null,
        )
      : null,
    pub.last_ball
      ? h("div", { class: "last" }, h("p", null, `Last ball: ${pub.last_ball.batter} ${pub.last_ball.verdict ? pub.last_ball.verdict.call : `${pub.last_ball.runs} run${pub.last_ball.runs === 1 ? "" : "s"}`}`), current && current.this_over.length > 0 ? null : cardRow("Last ball", [cardView(table.book, pub.last_ball.card), ...(pub.last_ball.verdict ? [cardView(table.book, pub.last_ball.verdict.card)] : [])]))
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
