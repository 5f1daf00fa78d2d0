/** A match: its target, the competitors and their totals, every deal with what each scored
 * and a way to its table, and the winners once it is over. Public, like its deals; it looks
 * again whenever the deal being played moves, so the next deal appears when it is dealt. */

import { api, follow, ok, type Schemas } from "../api";
import { h, replace } from "../h";
import { errorBox, frame, gameName } from "../ui";
import { setTitle } from "../notices";

type MatchView = Schemas["MatchView"];

const STATUS: Record<MatchView["status"], string> = {
  playing: "Being played",
  finished: "Over",
  conceded: "Over: conceded",
  abandoned: "Abandoned: no result",
};

function target(view: MatchView): string {
  return view.target.kind === "points" ? `First to ${view.target.points} points` : `A series of ${view.target.deals} matches`;
}

function standings(view: MatchView): HTMLElement {
  const winners = new Set(view.winners);
  return h(
    "table",
    { class: "standings" },
    h("caption", null, "Standings"),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Total"))),
    h(
      "tbody",
      null,
      view.competitors.map((c) =>
        h(
          "tr",
          { class: winners.has(c.competitor) ? "winner" : undefined, "data-competitor": c.competitor },
          h("th", { scope: "row" }, c.name, winners.has(c.competitor) ? " — wins" : null, view.conceded_by === c.competitor ? " — conceded" : null),
          h("td", null, String(c.total)),
        ),
      ),
    ),
  );
}

function deals(view: MatchView): HTMLElement {
  return h(
    "ol",
    { class: "deals", start: 1 },
    view.deals.map((deal) =>
      h(
        "li",
        { "data-deal": deal.deal },
        h("a", { href: `/play/games/${deal.game}`, "data-link": true }, `Deal ${deal.deal + 1}`),
        " ",
        deal.points
          ? h("span", null, view.competitors.map((c) => `${c.name} ${deal.points?.[c.competitor] ?? 0}`).join(", "))
          : h("span", { class: "quiet" }, deal.ended_by ? `ended by ${deal.ended_by}` : deal.status === "waiting" ? "waiting for players" : "being played"),
      ),
    ),
  );
}

export async function matchPage(root: HTMLElement, params: Record<string, string>, signal: AbortSignal): Promise<void> {
  const id = params.id ?? "";
  const body = h("div", { "aria-live": "polite" });
  const main = frame(root, "Match", h("h1", null, "Match"), body);
  let following = "";
  let watching: AbortController | null = null;
  signal.addEventListener("abort", () => watching?.abort());
  const load = async (): Promise<void> => {
    if (signal.aborted) return;
    try {
      const view = await ok(api.GET("/v1/matches/{id}", { params: { path: { id } } }));
      setTitle(`${gameName(view.game)} match — Parlour`);
      replace(
        body,
        h("p", null, h("strong", null, gameName(view.game)), ` · ${target(view)} · `, h("span", { class: "badge", id: "match-status" }, STATUS[view.status])),
        standings(view),
        view.current ? h("p", null, h("a", { href: `/play/games/${view.current}`, "data-link": true, class: "button", id: "current-deal" }, "Go to the deal being played")) : null,
        h("h2", null, "Deals"),
        deals(view),
      );
      // Follow the deal in play: its end is when the standings change. Between two deals
      // (the next is dealt a moment after the last ends) look again shortly.
      const watch = view.current ?? "";
      if (watch && watch !== following) {
        following = watch;
        watching?.abort();
        watching = new AbortController();
        void follow(`/v1/games/${watch}/stream`, (event) => event === "view" && void load(), watching.signal, false);
      } else if (!watch && view.status === "playing") {
        setTimeout(() => void load(), 1000);
      }
    } catch (error) {
      replace(body, errorBox(error));
    }
  };
  await load();
  main.setAttribute("data-match", id);
}
