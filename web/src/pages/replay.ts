/** Replay and audit of a game: a slider and step buttons to any point (each point is the
 * server's `state?at=`), the story up to it, and the audit: the revealed seed, the
 * commitment, the chain, the verdict, and the log to download. */

import { api, catalogGame, ok, type GameEvent, type GameView } from "../api";
import { CardBook, cardRow, cardView } from "../cards";
import { h, replace } from "../h";
import { errorBox, frame, gameName } from "../ui";
import { storyLines, type Table } from "../games/kit";
import { moduleFor } from "../games/modules";

/** The private parts' fields in words ("laid" is GIRL's and CAR's face-down lay). */
const PART_NAMES: Record<string, string> = { hand: "hand", laid: "face-down lay" };

/** Every seat's hand once the game is over (the view's `revealed`), for players and
 * spectators alike: each of a seat's fields that is a list of cards, as a row of cards. */
function revealedHands(view: GameView, book: CardBook): HTMLElement | null {
  if (!Array.isArray(view.revealed) || view.revealed.length === 0) return null;
  return h(
    "section",
    { class: "revealed", "aria-labelledby": "revealed" },
    h("h2", { id: "revealed" }, "Every hand"),
    view.revealed.map((part, seat) => {
      const name = view.seats[seat]?.name || `Seat ${seat + 1}`;
      const rows = Object.entries(part ?? {})
        .filter((entry): entry is [string, string[]] => Array.isArray(entry[1]) && entry[1].every((card) => typeof card === "string" && book.has(card)))
        .map(([field, cards]) => {
          const what = PART_NAMES[field] ?? field.replace(/_/g, " ");
          return h("div", { class: "revealed-part" }, h("h4", null, `${name}’s ${what}`), cards.length > 0 ? cardRow(`${name}’s ${what}`, cards.map((card) => cardView(book, card))) : h("span", { class: "quiet" }, "no cards"));
        });
      return h("div", { class: "revealed-seat", "data-seat": seat }, h("h3", null, name), rows.length > 0 ? rows : h("p", { class: "quiet" }, "no cards"));
    }),
  );
}

function auditPanel(id: string): HTMLElement {
  const panel = h("section", { class: "audit", "aria-labelledby": "audit" }, h("h2", { id: "audit" }, "Audit"));
  const run = h("button", { type: "button" }, "Check this game");
  const out = h("div", { "aria-live": "polite" });
  run.addEventListener("click", async () => {
    run.disabled = true;
    try {
      const report = await ok(api.GET("/v1/games/{id}/audit", { params: { path: { id } } }));
      const verdict = report.chain_ok && report.replay_ok && report.seed_ok !== false && report.failures.length === 0;
      replace(
        out,
        h("p", { class: verdict ? "verdict ok" : "verdict bad", "data-verdict": verdict ? "ok" : "failed" }, verdict ? report.seed_ok === undefined ? "So far so good: the chain holds and every move replays. The seed is revealed, and checked, when the game ends." : "Verified: the chain holds, every move replays, and the seed matches its commitment and every shuffle." : "The audit found problems."),
        h(
          "dl",
          null,
          h("dt", null, "Seed commitment"),
          h("dd", null, h("code", null, report.seed_commitment)),
          h("dt", null, "Revealed seed"),
          h("dd", null, h("code", { "data-seed": report.seed ?? "" }, report.seed ?? "not yet: revealed when the game ends")),
          h("dt", null, "Salt"),
          h("dd", null, h("code", null, report.salt ?? "—")),
          h("dt", null, "Seed matches the commitment"),
          h("dd", null, report.seed_ok === undefined ? "not yet" : report.seed_ok ? "yes" : "no"),
          h("dt", null, "Hash chain"),
          h("dd", null, `${report.chain_ok ? "intact" : "broken"} (format ${report.chain}); head ${report.head_hash ?? "—"}`),
          h("dt", null, "Replay"),
          h("dd", null, report.replay_ok ? `all ${report.events} events replay` : "does not replay"),
        ),
        report.failures.length > 0 ? h("ul", null, report.failures.map((failure) => h("li", null, `${failure.check}: ${failure.detail}`))) : null,
      );
    } catch (error) {
      replace(out, errorBox(error));
    } finally {
      run.disabled = false;
    }
  });
  panel.append(run, out, h("p", null, h("a", { href: `/v1/games/${id}/file`, download: `parlour-${id}.json` }, "Download the whole log"), " (check it yourself with tools/verify.py)."));
  return panel;
}

export async function replayPage(root: HTMLElement, params: Record<string, string>): Promise<void> {
  const id = params.id ?? "";
  const main = frame(root, "Replay");
  let latest: GameView;
  try {
    latest = (await ok(api.GET("/v1/games/{id}", { params: { path: { id } } }))) as GameView;
  } catch (error) {
    main.append(errorBox(error));
    return;
  }
  const module = moduleFor(latest.game);
  const book = new CardBook((await catalogGame(latest.game)).cards);
  const events: GameEvent[] = [];
  for (let after = 0; ; ) {
    const page = await ok(api.GET("/v1/games/{id}/events", { params: { path: { id }, query: { after, limit: 1000 } } }));
    events.push(...page.events);
    if (page.next_after === undefined || page.next_after === null || page.events.length === 0) break;
    after = page.next_after;
  }
  const slider = h("input", { type: "range", id: "at", min: 0, max: latest.version, value: latest.version, "aria-label": "Point in the game" });
  const label = h("output", { for: "at", id: "at-label" });
  const board = h("section", { class: "board", "aria-live": "polite" });
  const story = h("ol", { class: "story", "aria-label": "What had happened", tabindex: 0 });
  const table = (view: GameView): Table => ({
    view,
    book,
    names: view.seats.map((seat) => seat.name),
    me: view.you?.seat ?? null,
    legal: [],
    picked: new Map(),
    target: null,
    targetCard: null,
    redraw: () => undefined,
    act: () => undefined,
    verbs: module.verbs,
  });
  let shown = -1;
  const show = async (at: number) => {
    shown = at;
    label.textContent = `after event ${at} of ${latest.version}`;
    const view = (await ok(api.GET("/v1/games/{id}/state", { params: { path: { id }, query: { at } } }))) as GameView;
    if (shown !== at) return;
    const t = table(view);
    replace(board, h("div", { "data-version": view.version }, module.board(t), view.you ? module.hand(t) : null, revealedHands(view, book)));
    await module.prepare?.(t, events).catch(() => undefined);
    if (shown !== at) return;
    replace(story, storyLines(module, t, events.filter((event) => event.seq <= at)).map((line) => h("li", null, line)));
  };
  const step = (delta: number) => {
    slider.value = String(Math.min(Math.max(Number(slider.value) + delta, 0), latest.version));
    void show(Number(slider.value));
  };
  const button = (text: string, title: string, delta: number) => {
    const b = h("button", { type: "button", class: "secondary", "aria-label": title }, text);
    b.addEventListener("click", () => step(delta));
    return b;
  };
  slider.addEventListener("input", () => void show(Number(slider.value)));
  main.append(
    h("h1", null, `Replay: ${gameName(latest.game)}`),
    h("p", null, h("a", { href: `/play/games/${id}`, "data-link": true }, "Back to the table")),
    h("div", { class: "replay-controls" }, button("« Start", "To the start", -Infinity), button("‹ Back", "One back", -1), slider, button("On ›", "One on", 1), button("End »", "To the end", Infinity), label),
    board,
    h("section", { class: "story-panel" }, h("h2", null, "The story to here"), story),
    auditPanel(id),
  );
  await show(latest.version);
}
