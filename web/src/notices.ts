/** Being told on every page: while signed in, the account's stream is followed whatever page
 * is open, so a move, a reminder or a timeout in any game reaches a player sitting at another
 * table. The tab's title counts the games waiting for my move, and (if the player allowed it)
 * a notification names the game, the other players and what happened. */

import { api, follow, ok, type InboxGame } from "./api";
import { pushedHere } from "./push";
import { session } from "./session";
import { gameName } from "./ui";

type Notice = { game: string; notices: string[]; row: InboxGame };

/** What a notice kind says happened, or nothing for one not worth a notification. */
const TOLD: Record<string, string> = {
  your_turn: "Your move",
  deadline_near: "80 % of your time for this move is used",
  timed_out: "Time ran out",
};

/** Games waiting for my move, as the stream has told of them since the page was opened. */
const waiting = new Set<string>();
let following: AbortController | null = null;
let baseTitle = document.title;

/** The game whose table is open, if one is. */
function openTable(): string | null {
  return /^\/play\/games\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? null;
}

/** Sets the title as a page would, with the count of games waiting for me in front. */
export function setTitle(title: string): void {
  baseTitle = title;
  showCount();
}

function showCount(): void {
  document.title = waiting.size > 0 ? `(${waiting.size}) ${baseTitle}` : baseTitle;
}

/** The other players' names, for a notification: from the game's view. */
async function others(game: string): Promise<string> {
  try {
    const view = await ok(api.GET("/v1/games/{id}", { params: { path: { id: game } } }));
    const mine = view.you?.seat;
    const names = view.seats.filter((seat) => seat.seat !== mine).map((seat) => seat.name || `seat ${seat.seat + 1}`);
    if (names.length === 0) return "";
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
    return ` against ${list}`;
  } catch {
    return "";
  }
}

async function told(notice: Notice): Promise<void> {
  if (notice.row.asked === "move" && notice.row.status === "active") waiting.add(notice.game);
  else waiting.delete(notice.game);
  showCount();
  window.dispatchEvent(new CustomEvent("parlour:notice", { detail: notice }));
  const what = notice.notices.map((kind) => TOLD[kind]).find(Boolean);
  if (!what) return;
  // The table that is open and looked at tells its own news.
  if (notice.game === openTable() && !document.hidden) return;
  const body = `${gameName(notice.row.game)}${await others(notice.game)}`;
  document.body.dataset.lastNotice = `${what}: ${body}`;
  // A device told by push is shown the notice by its service worker, tab open or not.
  if ("Notification" in window && Notification.permission === "granted" && !(await pushedHere())) {
    // Tagged by the game, as the service worker tags a pushed notice of it: the two are one
    // notification, the newer replacing the older, never both.
    new Notification(`Parlour: ${what}`, { body, tag: notice.game });
  }
}

/** The games waiting for my move, as the inbox lists them (the inbox page, and once when
 * following starts). */
export function waitingFor(games: string[]): void {
  waiting.clear();
  for (const game of games) waiting.add(game);
  showCount();
}

async function seed(signal: AbortSignal): Promise<void> {
  try {
    const inbox = await ok(api.GET("/v1/me/games"));
    if (!signal.aborted) waitingFor(inbox.games.filter((game) => game.asked === "move" && game.status === "active").map((game) => game.id));
  } catch {
    // The count starts from the stream's news alone.
  }
}

/** Follows the account's stream while a token is kept; called at every page change, it
 * starts following after joining or signing in and stops after signing out. */
export function keepTold(): void {
  const signedIn = session.token() !== null;
  if (signedIn && !following) {
    following = new AbortController();
    const mine = following;
    void seed(mine.signal);
    void follow(
      "/v1/me/stream",
      (event, data) => {
        if (event === "notice") void told(JSON.parse(data) as Notice);
      },
      mine.signal,
    ).finally(() => {
      if (following === mine) following = null;
    });
  } else if (!signedIn && following) {
    following.abort();
    following = null;
    waiting.clear();
    showCount();
  }
}
