/** My games: the inbox, most urgent first, kept live by the account's stream. The tab's
 * title and (if allowed) a browser notification say when it is my move. Below it, the open
 * tables: games their hosts listed for anyone to join, each joined with one click. */

import { api, ok, persistently, serverNow, tokenRefused, type InboxGame, type Schemas } from "../api";
import { setTitle, waitingFor } from "../notices";
import { h, replace } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { forgetPush, pushState, pushSupported, turnOn } from "../push";
import { busy, countdown, errorBox, frame, gameName, when } from "../ui";

type Player = InboxGame["players"][number];
type OpenTable = Schemas["OpenTable"];

/** A seat's player as a row names them: "you", their name, a bot, or an open seat. */
function who(game: InboxGame, player: Player | undefined, seat: number): string {
  if (game.seat === seat) return "you";
  if (!player) return `seat ${seat + 1}`;
  if (player.name) return player.name;
  return player.bot ? `a ${player.bot} bot` : "an open seat";
}

/** "Bea and Steady bot", "Bea, Cy and Di": the other players. */
function others(game: InboxGame): string {
  const names = game.players.filter((p) => p.seat !== game.seat).map((p) => who(game, p, p.seat));
  return names.length <= 1 ? (names[0] ?? "nobody") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** Who the game waits for, in words: "Your move", "Bea to move", "Waiting for 1 player". */
function state(game: InboxGame): string {
  if (game.status === "waiting") {
    if (game.asked === "claim") return "A seat is held for you";
    const open = game.players.filter((p) => !p.name && !p.bot).length;
    return open === 1 ? "Waiting for 1 player" : `Waiting for ${open} players`;
  }
  if (game.asked === "move") return "Your move";
  const movers = game.to_act.map((seat) => who(game, game.players[seat], seat));
  if (movers.length === 0) return "In play";
  const names = movers.length === 1 ? (movers[0] ?? "") : `${movers.slice(0, -1).join(", ")} and ${movers[movers.length - 1] ?? ""}`;
  return `${names.charAt(0).toUpperCase()}${names.slice(1)} to move`;
}

/** How a finished game ended, in one line: who won, or who resigned or ran out of time. */
export function ending(game: InboxGame): string {
  const result = (game.result ?? {}) as Record<string, unknown>;
  const name = (seat: unknown) => (typeof seat === "number" ? who(game, game.players[seat], seat) : "someone");
  const you = (text: string) => text.replace(/^you\b/, "You");
  switch (result.ended_by) {
    case "resignation":
      return you(`${name(result.seat)} resigned`) + ".";
    case "forfeit":
      return you(`${name(result.seat)} ran out of time`) + ".";
    case "abandonment":
      return "Abandoned: no result.";
    case "abort":
      return "Called off before it began.";
    default:
      break;
  }
  const winners = Array.isArray(result.winners) ? (result.winners as number[]) : [];
  if (winners.length === 0) return "Nobody won.";
  if (game.seat !== undefined && game.seat !== null && winners.includes(game.seat)) return winners.length === 1 ? "You won." : "You shared the win.";
  return `Won by ${winners.map(name).join(" and ")}.`;
}

/** What a table entry says happened, without naming anyone (it has no seat of its own). */
const AT_THE_TABLE: Record<string, string> = {
  "table.hosted": "The table was opened",
  "table.seat_offered": "A seat was offered",
  "table.offer_withdrawn": "An offer was withdrawn",
  "table.seated": "A seat was taken",
  "table.bot_seated": "A bot took a seat",
  "table.bot_left": "A player took a seat back from a bot",
  "table.resigned": "A player resigned",
  "table.abandoned": "The game was abandoned",
  "table.aborted": "The game was called off",
  "table.clock_set": "The clock was set",
  "table.reminded": "A reminder was sent",
  "table.timed_out": "A player ran out of time",
  "table.vacation_began": "A player went on holiday",
  "table.vacation_ended": "A player came back from holiday",
  "table.match_deal": "A deal of the match began",
  "table.note": "A note was added",
  "table.listed": "The table was listed",
};

/** "3 min ago", "2 h ago", "4 d ago", on the server's time. */
function ago(iso: string): string {
  const seconds = Math.max(0, Math.floor((serverNow() - Date.parse(iso)) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

/** The last thing that happened, in a few words: "Bea moved, 5 min ago". */
function lastLine(game: InboxGame): string | null {
  const last = game.last;
  if (!last) return null;
  let what: string;
  if (last.seat !== undefined && last.seat !== null) {
    const name = who(game, game.players[last.seat], last.seat);
    what = name === "you" ? "You moved" : `${name.charAt(0).toUpperCase()}${name.slice(1)} moved`;
  } else if (last.type === "deal") {
    what = "The cards were dealt";
  } else {
    what = AT_THE_TABLE[last.type] ?? "The table changed";
  }
  return `${what}, ${ago(last.at)}.`;
}

function row(game: InboxGame): HTMLElement {
  const href = game.asked === "claim" && game.offered_seat !== undefined && game.offered_seat !== null ? `/play/games/${game.id}?seat=${game.offered_seat}` : `/play/games/${game.id}`;
  const finished = game.status === "finished";
  return h(
    "li",
    { class: `inbox-row asked-${game.asked} status-${game.status}`, "data-game": game.id },
    h("a", { href, "data-link": true, class: "inbox-title" }, h("strong", null, gameName(game.game)), ` with ${others(game)}`),
    h("span", { class: "badge" }, finished ? ending(game) : state(game)),
    game.deadline ? countdown(game.deadline) : null,
    h(
      "span",
      { class: "quiet inbox-meta" },
      lastLine(game) ? `${lastLine(game)} ` : null,
      `Started ${when(game.created_at)}`,
      game.host ? " · you host" : null,
      game.deal_of ? " · " : null,
      game.deal_of ? h("a", { href: `/play/matches/${game.deal_of.match}`, "data-link": true }, `deal ${game.deal_of.deal + 1} of a match`) : null,
    ),
  );
}

/** A table's move clock in words: "no clock", "3 days a move", "a bank of 72 hours". */
function clockWords(clock: Schemas["TimeControlPlan"]): string {
  switch (clock.kind) {
    case "correspondence":
      return clock.days === 1 ? "1 day a move" : `${clock.days} days a move`;
    case "bank":
      return `a bank of ${clock.initial_hours} hour${clock.initial_hours === 1 ? "" : "s"}`;
    default:
      return "no clock";
  }
}

/** One open table: the game, its host, the seats filled, the clock, how long it stays listed,
 * and a button to join it (or what it is to me, if I host it or sit at it already). */
function tableRow(table: OpenTable, me: string, join: (table: OpenTable, button: HTMLButtonElement) => void): HTMLElement {
  const seats = table.seating.seats;
  const filled = seats.filter((seat) => seat.holder || seat.bot).length;
  const host = table.seating.host;
  const mine = host.id === me;
  const seated = seats.some((seat) => seat.holder?.id === me);
  let action: HTMLElement;
  if (mine || seated) {
    action = h("a", { href: `/play/games/${table.id}`, "data-link": true, class: "badge" }, mine ? "your table" : "you sit here");
  } else {
    const button = h("button", { type: "button", "aria-label": `Join ${host.name}’s ${gameName(table.game)} table` }, "Join");
    button.addEventListener("click", () => join(table, button));
    action = button;
  }
  return h(
    "li",
    { class: "inbox-row open-table", "data-table": table.id },
    h("span", { class: "inbox-title" }, h("strong", null, gameName(table.game)), ` hosted by ${mine ? "you" : host.name}`),
    h("span", { class: "badge" }, `${filled} of ${seats.length} seats filled`),
    action,
    h("span", { class: "quiet inbox-meta" }, `${clockWords(table.clock).replace(/^./, (c) => c.toUpperCase())} · listed until ${when(table.listed_until)}`),
  );
}

/** Offers notifications until they are on: by push where the browser has it (told even with
 * every tab closed), else while the page is open. The browser asks for permission only after
 * the player clicks. */
function notifyButton(): HTMLElement | null {
  if (!("Notification" in window) || Notification.permission === "denied") return null;
  const place = h("span", { class: "notify" });
  const button = h("button", { type: "button", class: "secondary" }, "Tell me when it is my move");
  if (!pushSupported()) {
    if (Notification.permission === "granted") return null;
    button.addEventListener("click", () => void Notification.requestPermission().then(() => button.remove()));
    return button;
  }
  const status = h("span", { "aria-live": "polite" });
  place.append(status);
  button.addEventListener("click", () => void busy(button, status, async () => {
    await turnOn();
    button.remove();
  }));
  void pushState()
    .then((state) => {
      if (state === "off") place.prepend(button);
    })
    .catch(() => undefined);
  return place;
}

export async function home(root: HTMLElement, _: Record<string, string>, signal: AbortSignal): Promise<void> {
  if (!session.token()) {
    navigate("/play/welcome", true);
    return;
  }
  const list = h("ul", { class: "inbox", "aria-live": "polite" });
  const history = h("ul", { class: "inbox history" });
  // The history comes a page at a time: this button reads the next one while there is one.
  const older = h("button", { type: "button", class: "secondary", "data-older": true }, "Show older games");
  const olderPlace = h("p", { hidden: true }, older);
  const olderStatus = h("p", { class: "quiet", "aria-live": "polite" });
  // The open tables, a page at a time like the history, chosen by game.
  const tables = h("ul", { class: "inbox open-tables", "data-open-tables": true });
  const tablesGame = h("select", { id: "tables-game" }, h("option", { value: "" }, "All games"));
  const refresh = h("button", { type: "button", class: "secondary" }, "Refresh");
  const more = h("button", { type: "button", class: "secondary" }, "Show more tables");
  const morePlace = h("p", { hidden: true }, more);
  const tablesStatus = h("div", { class: "quiet", "aria-live": "polite" });
  const greeting = h("h1", null, "My games");
  const main = frame(
    root,
    "My games",
    greeting,
    h("p", null, h("a", { href: "/play/new", "data-link": true, class: "button" }, "New game"), " ", notifyButton()),
    list,
    h("h2", null, "Open tables"),
    h("div", { class: "inline tables-filter" }, h("label", { for: "tables-game" }, "Show tables of"), tablesGame, refresh),
    tables,
    morePlace,
    tablesStatus,
    h("h2", null, "History"),
    history,
    olderPlace,
    olderStatus,
  );
  const reaching = h("p", { class: "notice", role: "status", "data-reaching": true });
  let me: Schemas["Me"];
  try {
    me = await persistently(
      () => ok(api.GET("/v1/me")),
      (seconds) => {
        reaching.textContent = `Can’t reach the server; trying again in ${seconds} s…`;
        if (!reaching.isConnected) main.prepend(reaching);
      },
      signal,
    );
    reaching.remove();
    greeting.textContent = `${me.account.name}’s games`;
  } catch (error) {
    reaching.remove();
    // Only the server saying the token is unknown or revoked signs this device out.
    if (tokenRefused(error)) {
      void forgetPush();
      session.signOut();
      navigate("/play/welcome", true);
    } else if (!signal.aborted) {
      main.prepend(errorBox(error));
    }
    return;
  }
  // Where the next page of the history starts (null: no more), and which load it belongs
  // to: a reload starts from the first page again, and a page read for an earlier one is
  // dropped rather than appended to the new list.
  let next: string | null = null;
  let generation = 0;
  const showNext = (cursor: string | null | undefined) => {
    next = cursor ?? null;
    olderPlace.hidden = next === null;
  };
  older.addEventListener("click", () => void busy(older, olderStatus, async () => {
    if (next === null) return;
    const asked = generation;
    const page = await ok(api.GET("/v1/me/games", { params: { query: { cursor: next } } }));
    if (asked !== generation || signal.aborted) return;
    // Rows come newest first across pages: append them in order, skipping any already shown.
    const shown = new Set(Array.from(history.querySelectorAll<HTMLElement>(".inbox-row"), (li) => li.dataset.game));
    const rows = page.games.filter((game) => game.status === "finished" && !shown.has(game.id)).map(row);
    history.querySelector(":scope > .quiet")?.remove();
    history.append(...rows);
    showNext(page.next);
    olderStatus.textContent = `${rows.length} older game${rows.length === 1 ? "" : "s"} shown${next === null ? "; that is all of them" : ""}.`;
    // The button goes once the history is all shown: keep the keyboard near the new rows.
    if (next === null) rows[0]?.querySelector<HTMLElement>("a")?.focus();
  }));
  const load = async () => {
    const ours = ++generation;
    try {
      const inbox = await ok(api.GET("/v1/me/games"));
      if (ours !== generation) return;
      const mine = inbox.games.filter((game) => game.asked === "move" && game.status === "active");
      waitingFor(mine.map((game) => game.id));
      setTitle(mine.length > 0 ? "Your move — Parlour" : "My games — Parlour");
      const current = inbox.games.filter((game) => game.status !== "finished");
      const done = inbox.games.filter((game) => game.status === "finished");
      replace(list, current.length === 0 ? h("li", { class: "quiet" }, "No games in play: start one, or open an invitation link.") : current.map(row));
      // Finished games move to the history, newest first as the server lists them (a page
      // at a time), each with how it ended.
      replace(history, done.length === 0 ? h("li", { class: "quiet" }, "No finished games yet.") : done.map(row));
      olderStatus.replaceChildren();
      showNext(inbox.next);
    } catch (error) {
      replace(list, h("li", null, errorBox(error)));
    }
  };
  // The open tables: where the next page starts (null: no more), and which load a page
  // belongs to, as for the history.
  const myId = me.account.id;
  let tablesNext: string | null = null;
  let tablesGeneration = 0;
  const tablesQuery = () => (tablesGame.value ? { game: tablesGame.value } : {});
  const showMoreTables = (cursor: string | null | undefined) => {
    tablesNext = cursor ?? null;
    morePlace.hidden = tablesNext === null;
  };
  const joinTable = (table: OpenTable, button: HTMLButtonElement) =>
    void busy(button, tablesStatus, async () => {
      try {
        await ok(api.POST("/v1/games/{id}/join", { params: { path: { id: table.id } } }));
      } catch (error) {
        // Taken or begun meanwhile: the list shows what is still open.
        void loadTables(false);
        throw error;
      }
      navigate(`/play/games/${table.id}`);
    });
  const loadTables = async (clearStatus = true) => {
    const ours = ++tablesGeneration;
    try {
      const page = await ok(api.GET("/v1/tables", { params: { query: tablesQuery() } }));
      if (ours !== tablesGeneration || signal.aborted) return;
      const empty = tablesGame.value ? `No open ${gameName(tablesGame.value)} tables right now: host one and list it.` : "No open tables right now: host one and list it.";
      replace(tables, page.tables.length === 0 ? h("li", { class: "quiet" }, empty) : page.tables.map((table) => tableRow(table, myId, joinTable)));
      if (clearStatus) tablesStatus.replaceChildren();
      showMoreTables(page.next);
    } catch (error) {
      if (ours !== tablesGeneration || signal.aborted) return;
      replace(tables, h("li", null, errorBox(error)));
      showMoreTables(null);
    }
  };
  more.addEventListener("click", () => void busy(more, tablesStatus, async () => {
    if (tablesNext === null) return;
    const asked = tablesGeneration;
    const page = await ok(api.GET("/v1/tables", { params: { query: { ...tablesQuery(), cursor: tablesNext } } }));
    if (asked !== tablesGeneration || signal.aborted) return;
    const shown = new Set(Array.from(tables.querySelectorAll<HTMLElement>(".open-table"), (li) => li.dataset.table));
    const rows = page.tables.filter((table) => !shown.has(table.id)).map((table) => tableRow(table, myId, joinTable));
    tables.querySelector(":scope > .quiet")?.remove();
    tables.append(...rows);
    showMoreTables(page.next);
    tablesStatus.textContent = `${rows.length} more table${rows.length === 1 ? "" : "s"} shown${tablesNext === null ? "; that is all of them" : ""}.`;
    if (tablesNext === null) rows[0]?.querySelector<HTMLElement>("button, a")?.focus();
  }));
  refresh.addEventListener("click", () => void busy(refresh, tablesStatus, () => loadTables()));
  tablesGame.addEventListener("change", () => void loadTables());
  // The filter offers every game of the catalogue; without it, all games are still listed.
  void ok(api.GET("/v1/catalog"))
    .then((catalog) => tablesGame.append(...catalog.games.map((game) => h("option", { value: game.id }, gameName(game.id)))))
    .catch(() => undefined);
  await Promise.all([load(), loadTables()]);
  // The account's stream is followed on every page (notices.ts): the inbox and the open
  // tables reload on its news.
  const reload = () => {
    void load();
    void loadTables();
  };
  window.addEventListener("parlour:notice", reload);
  signal.addEventListener("abort", () => window.removeEventListener("parlour:notice", reload), { once: true });
}
