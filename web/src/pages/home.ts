/** My games: the inbox, most urgent first, kept live by the account's stream. The tab's
 * title and (if allowed) a browser notification say when it is my move. */

import { api, ok, persistently, tokenRefused, type InboxGame } from "../api";
import { setTitle, waitingFor } from "../notices";
import { h, replace } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { errorBox, frame, gameName, when } from "../ui";

const ASKED: Record<InboxGame["asked"], string> = {
  move: "Your move",
  claim: "A seat is held for you",
  nothing: "",
};

function row(game: InboxGame): HTMLElement {
  const seat = game.seat ?? game.offered_seat;
  const href = game.asked === "claim" && game.offered_seat !== undefined ? `/play/games/${game.id}?seat=${game.offered_seat}` : `/play/games/${game.id}`;
  const state =
    game.status === "finished"
      ? "Finished"
      : game.status === "waiting"
        ? "Waiting for players"
        : game.asked === "move"
          ? "Your move"
          : "Others to move";
  return h(
    "li",
    { class: `inbox-row asked-${game.asked} status-${game.status}`, "data-game": game.id },
    h("a", { href, "data-link": true }, h("strong", null, gameName(game.game)), " ", h("span", { class: "quiet" }, game.id.slice(0, 8))),
    h("span", { class: "badge" }, ASKED[game.asked] || state),
    seat !== undefined && seat !== null ? h("span", { class: "quiet" }, `seat ${seat + 1}`) : null,
    game.host ? h("span", { class: "quiet" }, "host") : null,
    game.deadline ? h("span", { class: "deadline" }, `by ${when(game.deadline)}`) : null,
    game.deal_of ? h("a", { href: `/play/matches/${game.deal_of.match}`, "data-link": true, class: "quiet" }, `deal ${game.deal_of.deal + 1} of a match`) : null,
  );
}

function notifyButton(): HTMLElement | null {
  if (!("Notification" in window) || Notification.permission === "granted") return null;
  const button = h("button", { type: "button", class: "secondary" }, "Tell me when it is my move");
  button.addEventListener("click", () => void Notification.requestPermission().then(() => button.remove()));
  return button;
}

export async function home(root: HTMLElement, _: Record<string, string>, signal: AbortSignal): Promise<void> {
  if (!session.token()) {
    navigate("/play/welcome", true);
    return;
  }
  const list = h("ul", { class: "inbox", "aria-live": "polite" });
  const greeting = h("h1", null, "My games");
  const main = frame(
    root,
    "My games",
    greeting,
    h("p", null, h("a", { href: "/play/new", "data-link": true, class: "button" }, "New game"), " ", notifyButton()),
    list,
  );
  const reaching = h("p", { class: "notice", role: "status", "data-reaching": true });
  try {
    const me = await persistently(
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
      session.signOut();
      navigate("/play/welcome", true);
    } else if (!signal.aborted) {
      main.prepend(errorBox(error));
    }
    return;
  }
  const load = async () => {
    try {
      const inbox = await ok(api.GET("/v1/me/games"));
      const mine = inbox.games.filter((game) => game.asked === "move" && game.status === "active");
      waitingFor(mine.map((game) => game.id));
      setTitle(mine.length > 0 ? "Your move — Parlour" : "My games — Parlour");
      replace(list, inbox.games.length === 0 ? h("li", { class: "quiet" }, "No games yet: start one, or open an invitation link.") : inbox.games.map(row));
    } catch (error) {
      replace(list, h("li", null, errorBox(error)));
    }
  };
  await load();
  // The account's stream is followed on every page (notices.ts): the inbox reloads on its news.
  const reload = () => void load();
  window.addEventListener("parlour:notice", reload);
  signal.addEventListener("abort", () => window.removeEventListener("parlour:notice", reload), { once: true });
}
