/** What every game's table is drawn with: the view, the cards, the seat names, and the
 * legal actions turned into things to click. Each game's module draws its own board and
 * tells its own story; choosing among legal actions is written once, here. */

import type { GameEvent, GameView } from "../api";
import { CardBook, cardView } from "../cards";
import { h, type Child } from "../h";

/** A legal action as the view lists it: a `type`, and fields that are fixed or a choice
 * (`{choose, from}`). */
export type Legal = { type: string } & Record<string, unknown>;
/** A move to send. */
export type Move = { type: string } & Record<string, unknown>;

export interface Choose {
  choose: number;
  from: string[];
}

export function isChoose(value: unknown): value is Choose {
  return typeof value === "object" && value !== null && "choose" in value && "from" in value;
}

/** The table as one render sees it. */
export interface Table {
  view: GameView;
  book: CardBook;
  /** Seat names, by seat. */
  names: string[];
  /** My seat, if I sit here. */
  me: number | null;
  legal: Legal[];
  /** What is picked so far for each choice (`lay`, `show`, a batting order...), by action type. */
  picked: Map<string, string[]>;
  /** The seat chosen first in a two-step choice (ask a player, then for a card). */
  target: number | null;
  /** The card chosen second in an ask that also shows cards (History of England's Crown). */
  targetCard: string | null;
  /** Redraws after a change of selection. */
  redraw: () => void;
  /** Sends a move. */
  act: (move: Move) => void;
  /** The game's words for its actions (its module's `verbs`). */
  verbs: Record<string, string>;
}

/** One game's part of the page. */
export interface GameModule {
  /** The board: what is face up, face down, and whose turn. */
  board(table: Table): Child;
  /** The seat's own cards (hand), with direct manipulation where legal. */
  hand(table: Table): Child;
  /** An event of the log in plain words, or null for one not worth telling; `events` is the
   * log so far, for a line that depends on what came before. */
  narrate(event: GameEvent, table: Table, events?: GameEvent[]): string | null;
  /** A choice's item (a player's name in a batting order) as the table shows it. */
  itemName?(table: Table, item: string): string;
  /** Words for each action type's button. */
  verbs: Record<string, string>;
  /** What a move will do, in one line ("Asks Bob for a Cuckoo"), shown as it is selected;
   * `null` leaves the general wording of `describeMove`. */
  hint?(action: Legal, table: Table): string | null;
  /** Fetches whatever the story needs beyond the log before `narrate` runs over `events`
   * (GOOGLY's ball-by-ball record, to name batter and bowler). */
  prepare?(table: Table, events: GameEvent[]): Promise<void>;
  /** Action types that are standing orders rather than this turn's move (British Birds'
   * Owl preference), drawn apart with this heading and explanation. */
  standing?: { types: string[]; heading: string; explain: string; now?: (table: Table) => string | null };
  /** The game's own lines in the results panel: a sentence saying who won and on what. */
  outcome?(table: Table): string | null;
}

/** The seat's name in a sentence. */
export function who(table: Table, seat: unknown): string {
  if (typeof seat !== "number") return "someone";
  if (seat === table.me) return "you";
  return table.names[seat] ?? `seat ${seat + 1}`;
}

/** Capitalised, for the start of a sentence. */
export function Who(table: Table, seat: unknown): string {
  const name = who(table, seat);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The seat's verb in the present tense: "you ask" but "Bea asks". */
export function verb(table: Table, seat: unknown, plain: string, third: string): string {
  return seat === table.me ? plain : third;
}

/** Whose: "your" for me, "Bea’s" for anyone else. */
export function whose(table: Table, seat: unknown): string {
  return seat === table.me ? "your" : `${who(table, seat)}’s`;
}

/** Capitalised, for the start of a sentence. */
export function Whose(table: Table, seat: unknown): string {
  const name = whose(table, seat);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A seat's name as a sentence's subject with its verb agreeing: "you have", "Bea has". */
export function Subject(table: Table, seat: unknown, plain: string, third: string): string {
  return `${Who(table, seat)} ${verb(table, seat, plain, third)}`;
}

/** Names joined as English lists them: "Ann", "Ann and Bea", "Ann, Bea and Cat". */
export function list(names: string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "A steady bot", "An expert bot": the article a word takes, capitalised. */
export function article(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? "An" : "A"} ${phrase}`;
}

/** "1 card", "3 cards". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Ends `text` with a full stop unless it already ends with one (or ? or !): a card named
 * "L.B.W." ends its own sentence. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The legal action that takes exactly this card (and nothing else to choose), if any. */
export function cardAction(table: Table, card: string, types?: string[]): Legal | undefined {
  return table.legal.find((action) => action.card === card && !("seat" in action) && (!types || types.includes(action.type)));
}

/** The legal action whose `field` is a choice from cards, if any (a lay, a show). */
export function choiceAction(table: Table): { action: Legal; field: string; choice: Choose } | undefined {
  for (const action of table.legal) {
    for (const [field, value] of Object.entries(action)) {
      if (isChoose(value) && !("seat" in action)) return { action, field, choice: value };
    }
  }
  return undefined;
}

/** A hand of cards: each one pickable for a one-card action, or selectable for a choice. */
export function handOf(table: Table, cards: string[], label = "Your hand"): HTMLElement {
  const choice = choiceAction(table);
  const shown =
    cards.length === 0
      ? [h("span", { class: "quiet" }, "no cards")]
      : cards.map((card) => {
          const single = cardAction(table, card);
          if (single) {
            return cardView(table.book, card, { onPick: () => table.act(single as Move), note: verbFor(table, single) });
          }
          if (choice && choice.choice.from.includes(card)) {
            const picked = pickedFor(table, choice.action.type);
            const selected = picked.includes(card);
            return cardView(table.book, card, {
              selected,
              onPick: () => {
                if (selected) picked.splice(picked.indexOf(card), 1);
                else if (picked.length < choice.choice.choose) picked.push(card);
                table.redraw();
              },
            });
          }
          return cardView(table.book, card);
        });
  // A long hand scrolls sideways: with no card to pick, the row itself takes the keyboard.
  const pickable = shown.some((card) => card.tagName === "BUTTON");
  return h("div", { class: "card-row hand", role: "group", "aria-label": label, tabindex: pickable ? undefined : 0 }, shown);
}

/** The picks so far for one action type's choice. */
export function pickedFor(table: Table, type: string): string[] {
  let picked = table.picked.get(type);
  if (!picked) {
    picked = [];
    table.picked.set(type, picked);
  }
  return picked;
}

export function verbFor(table: Table, action: Legal): string {
  return table.verbs[action.type] ?? action.type.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** ", so Bea won" when the game ended with `seat`'s resignation or forfeit: the winners are
 * the first group of the result's concession. */
function soWon(table: Table, seat: unknown, endedBy: string): string {
  const result = table.view.result as { ended_by?: unknown; seat?: unknown; concession?: { ranking?: unknown } } | null | undefined;
  if (!result || result.ended_by !== endedBy || result.seat !== seat) return "";
  const ranking = result.concession?.ranking;
  const best = Array.isArray(ranking) && Array.isArray(ranking[0]) ? (ranking[0] as number[]) : [];
  if (best.length === 0) return "";
  return `, so ${list(best.map((winner) => who(table, winner)))} ${best.length > 1 ? "share the win" : "won"}`;
}

/** The table's own events (seats, clocks, bots, resignations), the same in every game. */
export function narrateTable(event: GameEvent, table: Table): string | null {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case "table.hosted":
      return `${String(data.name ?? "Someone")} opened the table.`;
    case "table.seated":
      return `${String(data.name ?? "Someone")} took seat ${Number(data.seat) + 1}.`;
    case "table.resigned":
      return `${Who(table, data.seat)} resigned${soWon(table, data.seat, "resignation")}.`;
    case "table.aborted":
      return "The host called the game off.";
    case "table.abandoned":
      return "The game was abandoned.";
    case "table.timed_out":
      return `${Who(table, data.seat)} ran out of time${soWon(table, data.seat, "forfeit")}.`;
    case "table.vacation_began":
      return `${Who(table, data.seat)} went on vacation.`;
    case "table.vacation_ended":
      return `${Who(table, data.seat)} came back from vacation.`;
    case "table.bot_seated":
      return `${article(typeof data.level === "string" ? `${data.level} bot` : "bot")} now plays seat ${Number(data.seat) + 1}.`;
    case "table.bot_left":
      return `Seat ${Number(data.seat) + 1} is played by its player again.`;
    case "table.note":
      return typeof data.text === "string" ? data.text : null;
    default:
      return null;
  }
}

/** The log in words, oldest first: each event as its game tells it, or as the table does. */
export function storyLines(module: GameModule, table: Table, events: GameEvent[]): string[] {
  return events
    .map((event) => module.narrate(event, table, events) ?? narrateTable(event, table))
    .filter((line): line is string => Boolean(line));
}

/** What a move will do, in one line: the game's own words if it has them, else the general
 * wording of the actions every game shares (an ask, a card picked up or laid). */
export function describeMove(module: GameModule, table: Table, action: Legal): string {
  const own = module.hint?.(action, table);
  if (own) return own;
  const card = typeof action.card === "string" ? table.book.name(action.card) : null;
  const seat = typeof action.seat === "number" ? (table.names[action.seat] ?? `seat ${action.seat + 1}`) : null;
  const cards = Object.values(action).find((value): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string"));
  if (action.type === "ask" && seat) {
    const showing = cards ? `, showing ${list(cards.map((id) => table.book.name(id)))}` : isChooseIn(action) ? ", showing two of your cards of its set" : "";
    return card ? `Asks ${seat} for ${card}${showing}.` : `Asks ${seat} for a card: pick which.`;
  }
  if (cards && cards.length > 0) return `${verbFor(table, action)}: ${list(cards.map((id) => table.book.name(id)))}.`;
  if (card) return `${verbFor(table, action)}: ${card}.`;
  return sentence(verbFor(table, action));
}

function isChooseIn(action: Legal): boolean {
  return Object.values(action).some(isChoose);
}
