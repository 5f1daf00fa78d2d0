/** The results panel of a finished game, the same for every game: who won and why (cards,
 * a resignation, a timeout, an abandonment), each player's score in the game's own figures,
 * and the match standing when the game is a deal of a match. It reads only the view's
 * `result` and the log's table events, so it needs nothing a game module does not give. */

import { api, ok, type GameEvent, type Schemas } from "../api";
import { h, replace, type Child } from "../h";
import { count, list, who, Who, type GameModule, type Table } from "./kit";

type Result = Record<string, unknown>;

/** A column of the score table: a figure of the result, per seat, in words. */
interface Column {
  heading: string;
  cell: (seat: number) => string;
}

function numbers(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((item) => typeof item === "number") ? (value as number[]) : null;
}

/** The columns a result has, by the figures it carries (the games name them alike). */
function columns(result: Result, table: Table): Column[] {
  const out: Column[] = [];
  const figure = (key: string, heading: string) => {
    const values = numbers(result[key]);
    if (values) out.push({ heading, cell: (seat) => String(values[seat] ?? "") });
  };
  figure("won", "Cards won");
  figure("in_hand", "Left in hand");
  figure("scores", "Score");
  if (Array.isArray(result.sets)) {
    const sets = result.sets as unknown[];
    out.push({ heading: "Sets", cell: (seat) => (Array.isArray(sets[seat]) ? (sets[seat] as string[]).map((set) => set.toUpperCase()).join(" ") || "none" : "") });
  }
  if (Array.isArray(result.completed_sets)) {
    const sets = result.completed_sets as unknown[];
    out.push({ heading: "Cards in completed reigns", cell: (seat) => (Array.isArray(sets[seat]) ? String((sets[seat] as unknown[]).length) : "") });
  }
  figure("points", "Points");
  // British Birds' series totals, when they say more than this game's points.
  const totals = numbers(result.totals);
  const points = numbers(result.points);
  if (totals && points && totals.length === table.names.length && totals.some((total, seat) => total !== points[seat])) figure("totals", "Total over the games");
  if (Array.isArray(result.seats) && result.seats.every((row) => typeof row === "object" && row !== null && "points" in row)) {
    const rows = result.seats as Schemas["GooglySeatPoints"][];
    out.push({ heading: "Championship points", cell: (seat) => String(rows.find((row) => row.seat === seat)?.points ?? "") });
  }
  const concession = result.concession as { points?: unknown; measure?: unknown } | undefined;
  const conceded = numbers(concession?.points);
  if (conceded) out.push({ heading: `When it stopped: ${String(concession?.measure ?? "points")}`, cell: (seat) => String(conceded[seat] ?? "") });
  return out;
}

/** Who won, by seat: the result's `winners`, or the first group of a concession's ranking. */
export function winners(result: Result): number[] {
  const listed = numbers(result.winners);
  if (listed) return listed;
  const ranking = (result.concession as { ranking?: unknown } | undefined)?.ranking;
  return Array.isArray(ranking) && Array.isArray(ranking[0]) ? (ranking[0] as number[]) : [];
}

/** "Ann won", "you won", "Ann and Bea won": the winners, as a sentence's subject and verb. */
function won(table: Table, seats: number[]): string {
  if (seats.length === 0) return "nobody won";
  return `${list(seats.map((seat) => who(table, seat)))} ${seats.length > 1 ? "share the win" : "won"}`;
}

/** Why the game ended and who won, in a sentence or two. */
export function why(table: Table, module: GameModule, events: GameEvent[]): string {
  const result = (table.view.result ?? {}) as Result;
  const best = winners(result);
  switch (result.ended_by) {
    case "abort":
      return "The host called the game off before it began: nobody won.";
    case "abandonment":
      return `The game was abandoned${typeof result.reason === "string" && result.reason ? ` (${result.reason})` : ""}: nobody won.`;
    case "resignation":
      return `${Who(table, result.seat)} resigned, so ${won(table, best)}.`;
    case "forfeit": {
      const timedOut = events.some((event) => event.type === "table.timed_out" && (event.data as { seat?: unknown }).seat === result.seat);
      return `${Who(table, result.seat)} ${timedOut ? "ran out of time" : "forfeited"}, so ${won(table, best)}.`;
    }
    default: {
      const own = module.outcome?.(table);
      if (own) return own;
      return `${capital(won(table, best))} ${onCards(table, result, best)}.`;
    }
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "on cards, with 12 points to Bea’s 9": the game played out, and by how much. */
function onCards(table: Table, result: Result, best: number[]): string {
  const points = numbers(result.totals) ?? numbers(result.scores) ?? numbers(result.points);
  if (!points || best.length === 0) return "when the game was played out";
  const top = points[best[0] ?? 0] ?? 0;
  const others = points.map((value, seat) => ({ value, seat })).filter(({ seat }) => !best.includes(seat)).sort((a, b) => b.value - a.value);
  const next = others[0];
  const tied = best.length > 1 ? ", tied" : "";
  return `on cards${tied}, with ${count(top, "point")}${next ? ` to ${next.seat === table.me ? "your" : `${table.names[next.seat] ?? "the next"}’s`} ${next.value}` : ""}`;
}

/** The standing of the match this game is a deal of: fetched, so drawn into a box later. */
function matchStanding(table: Table): HTMLElement | null {
  const dealOf = table.view.deal_of;
  if (!dealOf) return null;
  const box = h("div", { class: "match-standing", "aria-live": "polite" }, "The match standing…");
  void ok(api.GET("/v1/matches/{id}", { params: { path: { id: dealOf.match } } })).then(
    (match) => {
      const goal = match.target.kind === "points" ? `first to ${count(match.target.points, "point")}` : `a series of ${count(match.target.deals, "game")}`;
      const ahead = new Set(match.winners);
      replace(
        box,
        h("h3", null, `The match after deal ${dealOf.deal + 1} (${goal})`),
        h("p", null, match.competitors.map((c) => `${c.name} ${c.total}${ahead.has(c.competitor) ? " (wins the match)" : ""}`).join(", "), match.status === "playing" ? "; the next deal follows." : "."),
      );
    },
    () => box.remove(),
  );
  return box;
}

/** The panel, or nothing while the game is not over. */
export function resultsPanel(table: Table, module: GameModule, events: GameEvent[]): HTMLElement | null {
  if (table.view.status !== "finished" || !table.view.result) return null;
  const result = table.view.result as Result;
  const best = new Set(winners(result));
  const cols = columns(result, table);
  const rows: Child = table.view.seats.map((seat) =>
    h(
      "tr",
      { class: best.has(seat.seat) ? "winner" : undefined, "data-seat": seat.seat },
      h("th", { scope: "row" }, seat.name || `Seat ${seat.seat + 1}`, best.has(seat.seat) ? " — won" : null, result.seat === seat.seat && result.concession ? ` — ${result.ended_by === "resignation" ? "resigned" : "out of time"}` : null),
      cols.map((col) => h("td", null, col.cell(seat.seat))),
    ),
  );
  return h(
    "section",
    { class: "results", "aria-labelledby": "results-heading", tabindex: 0 },
    h("h2", { id: "results-heading" }, "Result"),
    h("p", { class: "results-why", "data-ended-by": String(result.ended_by ?? "play") }, why(table, module, events)),
    cols.length > 0
      ? h("table", { class: "results-table" }, h("thead", null, h("tr", null, h("th", { scope: "col" }, "Player"), cols.map((col) => h("th", { scope: "col" }, col.heading)))), h("tbody", null, rows))
      : null,
    matchStanding(table),
  );
}
