/** GOOGLY: the score, the batters at the crease, the bowler, this over, and the printed
 * scorecard (the server's own plain-text score-sheet), kept live. */

import { type GameEvent, type Schemas } from "../api";
import { cardRow, cardView } from "../cards";
import { h } from "../h";
import { count, handOf, list, sentence, who, type GameModule, type Legal, type Table } from "./kit";

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
  const pre = h("pre", { class: "scorecard", "aria-label": "Scorecard", tabindex: 0 }, "…");
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
      h("caption", null, renamed(table, pub.status)),
      h("thead", null, h("tr", null, h("th", null, "Innings"), h("th", null, "Score"), h("th", null, "Overs"))),
      h(
        "tbody",
        null,
        pub.innings.map((innings) => h("tr", null, h("td", null, sideName(table, innings.side)), h("td", null, `${innings.runs}/${innings.wickets}${innings.declared ? " dec" : ""}`), h("td", null, innings.overs))),
      ),
    ),
    pub.target !== undefined && pub.target !== null ? h("p", null, `Target: ${pub.target}`) : null,
    pub.toss ? h("p", null, `${sideName(table, pub.toss.side)} won the toss${pub.toss.elected ? ` and chose to ${pub.toss.elected}` : ""}.`) : null,
    current
      ? h(
          "div",
          { class: "crease" },
          h("p", null, `${anyPlayerName(table, current.striker.name)}* ${current.striker.runs} (${current.striker.balls}) · ${anyPlayerName(table, current.non_striker.name)} ${current.non_striker.runs} (${current.non_striker.balls})`),
          current.bowler ? h("p", null, `Bowling: ${anyPlayerName(table, current.bowler.name)}`) : null,
          h("p", null, `Over ${current.over + 1}, ball ${current.ball_of_over}. This over: ${current.this_over.map((ball) => (ball.verdict ? ball.verdict.call : String(ball.runs))).join(" ") || "—"}`),
          current.appeal_pending ? h("p", { class: "asking" }, "How’s that? The bowler turns up a card.") : null,
          // The over's cards as they fell: each batting card, and the bowling card that answered an appeal.
          current.this_over.length > 0 ? cardRow("This over’s cards", current.this_over.flatMap((ball) => [cardView(table.book, ball.card), ...(ball.verdict ? [cardView(table.book, ball.verdict.card)] : [])])) : null,
        )
      : null,
    pub.last_ball
      ? h("div", { class: "last" }, h("p", null, `Last ball: ${anyPlayerName(table, pub.last_ball.batter)} ${pub.last_ball.verdict ? pub.last_ball.verdict.call : `${pub.last_ball.runs} run${pub.last_ball.runs === 1 ? "" : "s"}`}`), current && current.this_over.length > 0 ? null : cardRow("Last ball", [cardView(table.book, pub.last_ball.card), ...(pub.last_ball.verdict ? [cardView(table.book, pub.last_ball.verdict.card)] : [])]))
      : null,
    h("p", { class: "quiet" }, `Day ${pub.time.day}; ${count(pub.time.overs_left, "over")} left.`),
    h("details", { open: true }, h("summary", null, "Scorecard"), scorecard(table)),
    table.view.status === "finished" ? h("p", null, h("a", { href: "/play/googly/series", "data-link": true }, "Series: the championship table and averages")) : null,
  ];
}

function hand(table: Table) {
  const you = table.view.you as (Schemas["GooglyPrivateView"] & { seat: number }) | null | undefined;
  return you && you.hand.length > 0 ? [h("h2", null, "Your batting cards"), handOf(table, you.hand)] : null;
}

/** One ball as the scorer's ball-by-ball record has it, with the score after it. */
interface Ball {
  side: number;
  batter: string;
  bowler: string;
  /** Runs off this ball, extras included. */
  runs: number;
  /** The innings' score after this ball. */
  total: number;
  wickets: number;
  /** The batter's own runs after this ball. */
  batterRuns: number;
  out: boolean;
}

/** Each game's balls in the order they were played, from the Cricsheet export: the log's
 * `ball` events carry only the card, and the nth `ball` event is the nth delivery. */
const ballBooks = new Map<string, Ball[]>();

type Cricsheet = {
  innings?: { team?: string; overs?: { deliveries?: { batter: string; bowler: string; runs?: { batter?: number; total?: number }; wickets?: unknown[] }[] }[] }[];
};

async function prepare(table: Table, events: GameEvent[]): Promise<void> {
  const balls = events.filter((event) => event.type === "ball").length;
  if ((ballBooks.get(table.view.id)?.length ?? 0) >= balls) return;
  const response = await fetch(`/v1/games/${table.view.id}/exports/cricsheet`);
  if (!response.ok) return;
  const sheet = (await response.json()) as Cricsheet;
  const teams = (table.view.public as Public).teams;
  const book: Ball[] = [];
  for (const innings of sheet.innings ?? []) {
    const side = Math.max(0, teams.findIndex((team) => team.name === innings.team));
    let total = 0;
    let wickets = 0;
    const scored = new Map<string, number>();
    for (const over of innings.overs ?? []) {
      for (const delivery of over.deliveries ?? []) {
        const runs = delivery.runs?.total ?? 0;
        total += runs;
        const out = (delivery.wickets?.length ?? 0) > 0;
        if (out) wickets += 1;
        const batterRuns = (scored.get(delivery.batter) ?? 0) + (delivery.runs?.batter ?? 0);
        scored.set(delivery.batter, batterRuns);
        book.push({ side, batter: delivery.batter, bowler: delivery.bowler, runs, total, wickets, batterRuns, out });
      }
    }
  }
  ballBooks.set(table.view.id, book);
}

/** The ball a `ball` event played, and the one a `verdict` answered: the ball events
 * counted up to it. */
function ballOf(table: Table, event: GameEvent, events: GameEvent[]): Ball | undefined {
  let n = -1;
  for (const other of events) {
    if (other.seq > event.seq) break;
    if (other.type === "ball") n += 1;
  }
  return n >= 0 ? ballBooks.get(table.view.id)?.[n] : undefined;
}

function narrate(event: GameEvent, table: Table, events: GameEvent[] = []): string | null {
  const data = event.data as Record<string, unknown>;
  const team = (side: unknown) => (typeof side === "number" ? sideName(table, side) : "a side");
  const card = (id: unknown) => (typeof id === "string" ? table.book.name(id) : "a card");
  switch (event.type) {
    case "toss":
      return "The captains tossed.";
    case "elected":
      return `${team(data.side)} won the toss and chose to ${String(data.to)}.`;
    case "batting_order":
      return `${team(data.side)} named their batting order.`;
    case "opening_bowlers":
      // `side` is the fielding side, whose captain named them.
      return `${playerName(table, Number(data.side ?? 0), String(data.first))} and ${playerName(table, Number(data.side ?? 0), String(data.second))} open the bowling.`;
    case "bowler":
      return `${anyPlayerName(table, String(data.name))} bowls the next over.`;
    case "ball": {
      const ball = ballOf(table, event, events);
      const what = cardIsAppeal(table, data.card) ? "How’s that?" : sentence(card(data.card));
      if (!ball) return `Ball: ${what}`;
      const score = cardIsAppeal(table, data.card) ? "" : ` ${scoreAfter(table, ball)}`;
      return `${playerName(table, 1 - ball.side, ball.bowler)} to ${playerName(table, ball.side, ball.batter)}: ${what}${score}`;
    }
    case "verdict": {
      const ball = ballOf(table, event, events);
      const call = card(data.card);
      if (!ball) return sentence(`The bowler turned up ${call}`);
      const batter = playerName(table, ball.side, ball.batter);
      if (ball.out) return `${sentence(`${batter} is out for ${ball.batterRuns}: ${call}`)} ${scoreAfter(table, ball)}`;
      return ball.runs > 0 ? `${sentence(call)} ${scoreAfter(table, ball)}` : `${call}: ${batter} stays in.`;
    }
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

/** "Ann’s XI 56 for 3." */
function scoreAfter(table: Table, ball: Ball): string {
  return `${sideName(table, ball.side)} ${ball.total} for ${ball.wickets}.`;
}

/** Whether a batting card is "How's That" (the catalogue marks it). */
function cardIsAppeal(table: Table, id: unknown): boolean {
  return typeof id === "string" && /hows-that/.test(id);
}

/** The host named no side: it is named after its captain ("Ann’s XI"), since the sheet's
 * captains are the people at the table. Patience keeps the sheet's names: one person
 * captains both sides there. See docs/rules/googly.md, "Names at the table". */
export function sideName(table: Table, side: number): string {
  const pub = table.view.public as Public;
  const team = pub.teams[side];
  if (!team) return `side ${side + 1}`;
  const given = (table.view.options as Schemas["GooglyOptions"] | undefined)?.teams?.[side]?.name;
  const captain = table.names[team.captain];
  if (given || pub.variant === "patience" || !captain) return team.name;
  return `${captain}’s XI`;
}

/** A player of `side` as the table knows him: a name the host listed stays; a place the
 * sheet named after its side ("Gentlemen 3") is the person who plays it, with the place
 * when that person plays more than one ("Ann (3)"). */
export function playerName(table: Table, side: number, name: string): string {
  const pub = table.view.public as Public;
  const team = pub.teams[side];
  if (!team || pub.variant === "patience") return name;
  const index = team.players.indexOf(name);
  if (index < 0) return name;
  const listed = (table.view.options as Schemas["GooglyOptions"] | undefined)?.teams?.[side]?.players ?? [];
  if (index < listed.length || team.seats.length === 0) return name;
  const seat = team.seats[index % team.seats.length] ?? team.captain;
  const person = table.names[seat];
  if (!person) return name;
  return team.seats.length >= team.players.length ? person : `${person} (${index + 1})`;
}

/** The server's words ("Gentlemen lead by 40") with the sides as the table names them. */
export function renamed(table: Table, text: string): string {
  const teams = (table.view.public as Public).teams;
  return teams.reduce((out, team, side) => out.split(team.name).join(sideName(table, side)), text);
}

/** A player of either side (a `bowler` event names only the player). */
function anyPlayerName(table: Table, name: string): string {
  const teams = (table.view.public as Public).teams;
  const side = teams.findIndex((team) => team.players.includes(name));
  return side >= 0 ? playerName(table, side, name) : name;
}

/** What the selected move will do, in a line. */
function hint(action: Legal, table: Table): string | null {
  switch (action.type) {
    case "play":
      return "Turns up your batter’s next card: odd runs change the strike, a How’s That brings the bowler in.";
    case "bowl":
      return "Turns up the bowler’s card to answer How’s That: out, not out or a leg bye.";
    case "elect":
      return action.to === "bat" ? "Your side bats first." : "Puts the other side in to bat first.";
    case "batting_order":
      return "Sends in your side in the order picked: the first two open.";
    case "opening_bowlers":
      return "The first bowls the first over, the second the next.";
    case "bowler":
      return `${anyPlayerName(table, String(action.name))} bowls the next over.`;
    case "declare":
      return "Closes your side’s innings now.";
    case "play_on":
      return "The scorer turns your cards for you until one of your batters is out.";
    case "accept_defaults":
      return "Takes the usual choice for every decision you face now.";
    case "follow_on":
      return action.enforce ? "Sends the other side in again at once." : "Your side bats its second innings next.";
    case "extra_time":
      return action.claim ? "Plays three more overs to try to force a win." : "Lets the match end as a draw if no result comes.";
    default:
      return null;
  }
}

/** The result as a cricket scorer gives it ("Ann’s XI won by 45 runs"), then who won. */
function outcome(table: Table): string | null {
  const result = table.view.result as Schemas["GooglyOutcome"] | null | undefined;
  if (!result || typeof result !== "object" || !("result" in result)) return null;
  const match = result.result;
  if (match === "draw") return "The match was drawn: time ran out with no result.";
  if (match === "tie") return "The match was tied: the scores finished level.";
  const margin = match.won.margin;
  const by =
    "runs" in margin ? `by ${count(margin.runs, "run")}` : "wickets" in margin ? `by ${count(margin.wickets, "wicket")}` : `by an innings and ${count(margin.innings_and_runs, "run")}`;
  const people = result.winners.map((seat) => who(table, seat));
  return `${sideName(table, match.won.side)} won ${by}${people.length > 0 ? `, so ${list(people)} ${people.length > 1 ? "share the win" : "won"}` : ""}.`;
}

export const googly: GameModule = {
  outcome,
  board,
  hand,
  narrate,
  prepare,
  hint,
  itemName: (table, item) => anyPlayerName(table, item),
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
