/** Pieces every screen shares: the page frame, error messages, times, copying. */

import { ApiError, serverNow } from "./api";
import { h, type Child } from "./h";
import { keepTold, setTitle } from "./notices";
import { session } from "./session";

/** The frame around every screen: a header with the way home and to the account. */
export function frame(root: HTMLElement, title: string, ...content: Child[]): HTMLElement {
  setTitle(`${title} — Parlour`);
  keepTold();
  const main = h("main", { id: "main" }, ...content);
  root.replaceChildren(
    h("a", { class: "skip", href: "#main" }, "Skip to content"),
    h(
      "header",
      { class: "bar" },
      h("a", { href: "/play", "data-link": true, class: "brand" }, "Parlour"),
      h(
        "nav",
        { "aria-label": "Main" },
        session.token()
          ? [
              h("a", { href: "/play", "data-link": true }, "My games"),
              h("a", { href: "/play/new", "data-link": true }, "New game"),
              h("a", { href: "/play/account", "data-link": true }, "Account"),
            ]
          : [
              h("a", { href: "/play/welcome", "data-link": true }, "Join"),
              h("a", { href: "/play/sign-in", "data-link": true }, "Sign in"),
            ],
      ),
    ),
    main,
  );
  return main;
}

/** Refusals a player meets at a table, said as a person would say them. The server's own
 * `detail` is written for developers (it names fields and codes); where a refusal has a plain
 * meaning at the table, this is what the page says instead. */
const PLAIN: Record<string, string> = {
  "not-invited": "This invitation is not for you, or it was replaced or withdrawn: ask the host for a new link.",
  "seat-taken": "Someone took that seat first.",
  "seating-closed": "The seats can no longer change: every seat is taken and the cards are dealt.",
  "not-host": "Only the game's host can do that.",
  "not-your-seat": "Only the player in that seat can do that.",
  "not-your-move": "It is not your move yet.",
  conflict: "Someone moved at the same moment. The table is up to date now: try again.",
  "version-mismatch": "The game moved on while you chose. The table is up to date now: try again.",
  "game-not-found": "There is no such game: the link may be cut short or mistyped.",
  "rate-limited": "That was a lot at once: wait a moment, then try again.",
  "too-many-streams": "Too many Parlour pages are open on this device: close one and reload.",
  unavailable: "Parlour can't reach its database just now: try again in a moment.",
  "at-capacity": "Parlour is very busy just now: try again in a moment.",
  "passkeys-off": "This Parlour server takes no passkeys: sign in with a one-time code instead.",
  "passkey-exists": "That passkey is on the account already.",
  "insufficient-scope": "This device was let in for less than the whole account, and that is not part of it: do it on a device where you joined or signed in.",
  internal: "Something went wrong on Parlour's side: try again, and tell the host of this server if it goes on.",
};

/** A server's text as a sentence: no code quotes, a capital and a full stop. */
function sentence(text: string): string {
  const plain = text.replace(/`/g, "").trim();
  if (!plain) return plain;
  const capital = plain.charAt(0).toUpperCase() + plain.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** What went wrong, in words, for a person. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const code = String(error.problem.type ?? "").split("/").pop() ?? "";
    return PLAIN[code] ?? sentence(error.message);
  }
  if (error instanceof TypeError) return "Parlour can't be reached: check the connection, then try again.";
  return sentence(error instanceof Error ? error.message : String(error));
}

/** An alert box for an error, or nothing. */
export function errorBox(error: unknown): HTMLElement {
  return h("p", { class: "error", role: "alert" }, describe(error));
}

/** Runs `work` with `button` disabled; shows any refusal in `status`. */
export async function busy(button: HTMLButtonElement | null, status: HTMLElement, work: () => Promise<void>): Promise<void> {
  if (button) button.disabled = true;
  status.replaceChildren();
  try {
    await work();
  } catch (error) {
    status.replaceChildren(errorBox(error));
  } finally {
    if (button) button.disabled = false;
  }
}

/** "2 d 3 h", "5 h 10 min", "3 min": how long is left. */
export function duration(seconds: number): string {
  if (seconds <= 0) return "no time";
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return `${Math.max(minutes, 1)} min`;
}

/** A seat's time left, counting down to `deadline` (the server's) on the server's time: it
 * is worked out afresh at every tick, so it is right again as soon as a sleeping phone wakes. */
export function countdown(deadline: string): HTMLElement {
  const element = h("span", { class: "deadline", "data-deadline": deadline, role: "timer", "aria-live": "off" });
  tick(element);
  return element;
}

function tick(element: HTMLElement): void {
  const deadline = Date.parse(element.dataset.deadline ?? "");
  if (!Number.isFinite(deadline)) return;
  const left = Math.floor((deadline - serverNow()) / 1000);
  const text = left > 0 ? `${duration(left)} left` : "time is up";
  if (element.textContent !== text) element.textContent = text;
  element.classList.toggle("short", left < 3600);
}

/** Every countdown on the page, once a second and whenever the page is shown again. */
export function keepCountdownsRunning(): void {
  const all = () => document.querySelectorAll<HTMLElement>("[data-deadline]").forEach(tick);
  setInterval(all, 1000);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) all();
  });
}

/** A moment as the reader's clock shows it. */
export function when(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A read-only field holding `text`, with a button that copies it. */
export function copyField(label: string, text: string): HTMLElement {
  const input = h("input", { type: "text", readonly: true, value: text, "aria-label": label, class: "copy-text" });
  const button = h("button", { type: "button", class: "secondary" }, "Copy");
  button.addEventListener("click", () => {
    input.select();
    void navigator.clipboard?.writeText(text).then(
      () => (button.textContent = "Copied"),
      () => document.execCommand("copy"),
    );
  });
  return h("div", { class: "copy" }, h("span", { class: "copy-label" }, label), input, button);
}

/** Human names of the games, by catalogue id. */
export const GAME_NAMES: Record<string, string> = {
  girl: "GIRL",
  car: "The CAR Game",
  "british-birds": "British Birds",
  "history-of-england": "History of England No. 2",
  googly: "GOOGLY",
};

export function gameName(id: string): string {
  return GAME_NAMES[id] ?? id;
}
