// The log, typed: a page says which game it is of (`game`), and each entry's `type` narrows
// its `data` to that event's own shape, whole once the game is over or as the reader may see
// it during play. Plays GIRL moves until a seat has laid cards, reads the log as the other
// seat and as the layer, and checks that each sees what the document says it does.
//
//   node dist/events.js http://127.0.0.1:8080
//
// Exits non-zero if anything is refused or not as the document says.

import createClient from "openapi-fetch";
import { moveFrom } from "./girl.js";
import type { components, paths } from "./parlour.js";

type Schemas = components["schemas"];
type GirlEntry = Schemas["GirlLoggedEvent"];

const baseUrl = process.argv[2] ?? process.env.PARLOUR_URL ?? "http://127.0.0.1:8080";
const client = createClient<paths>({ baseUrl });

function fail(what: string, detail?: unknown): never {
  console.error(`events: ${what}`, detail === undefined ? "" : JSON.stringify(detail));
  process.exit(1);
}

const created = await client.POST("/v1/games", {
  body: { game: "girl", players: [{ name: "Ann" }, { name: "Bea" }] },
});
if (created.data === undefined || created.data.game !== "girl") fail("no GIRL game", created.error);
const id = created.data.id;
const tokens = created.data.seats.map((seat) => seat.token);

/** The whole log as `token`'s seat sees it, narrowed to GIRL's entries by the page's `game`. */
async function log(token: string): Promise<GirlEntry[]> {
  const { data, error } = await client.GET("/v1/games/{id}/events", {
    params: { path: { id }, query: { limit: 1000 } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (data === undefined) fail("the log was refused", error);
  if (data.game !== "girl") fail(`a page of ${data.game}'s log`);
  return data.events;
}

// Moves until some seat has laid cards.
let layer: number | undefined;
for (let moves = 0; layer === undefined; moves++) {
  if (moves > 200) fail("nobody laid cards in 200 moves");
  const view = await client.GET("/v1/games/{id}", { params: { path: { id } } });
  if (view.data === undefined || view.data.game !== "girl") fail("no view", view.error);
  const seat = view.data.to_act[0] ?? fail("nobody is to act");
  const token = tokens[seat] ?? fail(`no token for seat ${seat}`);
  const mine = await client.GET("/v1/games/{id}", {
    params: { path: { id } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (mine.data === undefined || mine.data.game !== "girl") fail("no seat view", mine.error);
  const legal = mine.data.legal_actions[0] ?? fail(`seat ${seat} has no legal action`);
  const moved = await client.POST("/v1/games/{id}/actions", {
    params: { path: { id } },
    headers: { Authorization: `Bearer ${token}` },
    body: moveFrom(legal),
  });
  if (moved.data === undefined) fail("a move was refused", moved.error);
  if (legal.type === "lay") layer = seat;
}

const other = tokens[layer === 0 ? 1 : 0] ?? fail("no other seat");
const own = tokens[layer] ?? fail("no layer's token");
for (const [who, token] of [["the other seat", other], ["the layer", own]] as const) {
  let lays = 0;
  for (const entry of await log(token)) {
    // `type` narrows `data`: these field reads compile only because it does.
    switch (entry.type) {
      case "deal": {
        const dealt = entry.data;
        if ("deck" in dealt) fail(`${who} was shown the whole deck during play`, dealt);
        if (dealt.hand === undefined || dealt.hand === null) fail(`${who} was not shown a hand`, dealt);
        break;
      }
      case "lay": {
        lays += 1;
        const laid = entry.data;
        const seen = "count" in laid ? laid : fail(`${who} was shown a lay whole during play`, laid);
        const cards = seen.cards ?? [];
        if (who === "the other seat" && cards.length > 0) fail("the other seat saw the laid cards", seen);
        if (who === "the layer" && cards.length !== seen.count) fail("the layer did not see its cards", seen);
        console.log(`${who} sees seat ${seen.seat} lay ${seen.count} card(s): ${cards.join(", ") || "hidden"}`);
        break;
      }
      case "table.resigned":
        fail("nobody resigned", entry.data.seat);
    }
  }
  if (lays === 0) fail(`${who} sees no lay`);
}
console.log("typed log: passed");
