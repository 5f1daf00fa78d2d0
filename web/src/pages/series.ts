/** A GOOGLY series: the County Championship table, batting and bowling averages, centuries
 * and hat-tricks over the finished matches I played, or those a link names (`?games=`). */

import { api, ok } from "../api";
import { h, replace } from "../h";
import { errorBox, frame } from "../ui";
import { session } from "../session";

interface Batting { player: string; team: string; matches: number; innings: number; not_outs: number; runs: number; highest: number; highest_not_out: boolean; average: number | null; hundreds: number; fifties: number }
interface Bowling { player: string; team: string; overs: string; maidens: number; runs: number; wickets: number; average: number | null; best: string; five_wickets: number }
interface Standing { team: string; played: number; won: number; lost: number; drawn: number; tied: number; first_innings_points: number; points: number }
interface Statistics { table: Standing[]; batting: Batting[]; bowling: Bowling[]; centuries: unknown[]; hat_tricks: unknown[] }

function grid(caption: string, heads: string[], rows: (string | number)[][]): HTMLElement {
  return h(
    "table",
    { class: "figures", tabindex: 0 },
    h("caption", null, caption),
    h("thead", null, h("tr", null, heads.map((head) => h("th", { scope: "col" }, head)))),
    h("tbody", null, rows.map((row) => h("tr", null, row.map((cell) => h("td", null, String(cell)))))),
  );
}

const average = (value: number | null) => (value === null ? "—" : value.toFixed(2));

export async function seriesPage(root: HTMLElement): Promise<void> {
  const main = frame(root, "GOOGLY series", h("h1", null, "GOOGLY series"));
  const named = new URLSearchParams(location.search).get("games");
  let ids: string[] = named ? named.split(",").filter(Boolean) : [];
  try {
    if (!named && session.token()) {
      // The finished matches come a page at a time: read them all, following `next`.
      let cursor: string | undefined;
      do {
        const page = await ok(api.GET("/v1/me/games", { params: { query: { game: "googly", status: "finished", limit: 100, ...(cursor ? { cursor } : {}) } } }));
        ids.push(...page.games.filter((game) => !game.result || !("ended_by" in game.result)).map((game) => game.id));
        cursor = page.next ?? undefined;
      } while (cursor);
    }
    if (ids.length === 0) {
      main.append(h("p", null, "No finished GOOGLY matches yet."));
      return;
    }
    const stats = (await ok(api.GET("/v1/statistics/{game}", { params: { path: { game: "googly" }, query: { games: ids.join(",") } } }))) as unknown as Statistics;
    const body = h("div");
    replace(
      body,
      h("p", null, `Over ${ids.length} match${ids.length === 1 ? "" : "es"}. `, h("a", { href: `/play/googly/series?games=${ids.join(",")}`, "data-link": true }, "A link to this series")),
      grid("County Championship", ["Team", "P", "W", "L", "D", "T", "1st inns", "Pts"], stats.table.map((s) => [s.team, s.played, s.won, s.lost, s.drawn, s.tied, s.first_innings_points, s.points])),
      grid("Batting averages", ["Batter", "Team", "M", "I", "NO", "Runs", "HS", "Ave", "100", "50"], stats.batting.map((b) => [b.player, b.team, b.matches, b.innings, b.not_outs, b.runs, `${b.highest}${b.highest_not_out ? "*" : ""}`, average(b.average), b.hundreds, b.fifties])),
      grid("Bowling averages", ["Bowler", "Team", "O", "M", "R", "W", "Ave", "Best", "5w"], stats.bowling.map((b) => [b.player, b.team, b.overs, b.maidens, b.runs, b.wickets, average(b.average), b.best, b.five_wickets])),
      h("p", null, `Centuries: ${stats.centuries.length}. Hat-tricks: ${stats.hat_tricks.length}.`),
    );
    main.append(body);
  } catch (error) {
    main.append(errorBox(error));
  }
}
