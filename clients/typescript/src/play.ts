// A small typed program against Parlour: creates a GIRL game and makes a legal move, every
// body typed by the types generated from openapi/openapi.json (`npm run generate`).
//
//   node dist/play.js http://127.0.0.1:8080
//
// Exits non-zero if anything is refused or not as the document says.

import createClient from "openapi-fetch";
import { moveFrom } from "./girl.js";
import type { components, paths } from "./parlour.js";

type Schemas = components["schemas"];
type GirlView = Schemas["GirlView"];
type Problem = Schemas["Problem"];

const baseUrl = process.argv[2] ?? process.env.PARLOUR_URL ?? "http://127.0.0.1:8080";
const client = createClient<paths>({ baseUrl });

function fail(what: string, problem?: Problem | unknown): never {
  console.error(`play: ${what}`, problem === undefined ? "" : JSON.stringify(problem));
  process.exit(1);
}

/** The game as `token`'s seat sees it, typed as a GIRL view. */
async function girlView(id: string, token: string): Promise<GirlView> {
  const { data, error } = await client.GET("/v1/games/{id}", {
    params: { path: { id } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (data === undefined) fail("the view was refused", error);
  // The discriminator: a view says which game it is of, and narrows to that game's view.
  if (data.game !== "girl") fail(`a view of ${data.game}, not of GIRL`);
  return data;
}

const body: Schemas["GirlNewGame"] = {
  game: "girl",
  players: [{ name: "Ann" }, { name: "Bea" }],
};
const created = await client.POST("/v1/games", { body });
if (created.data === undefined) fail("the game was not created", created.error);
const game = created.data;
if (game.game !== "girl") fail(`created a game of ${game.game}`);
console.log(`created ${game.id} (version ${game.version}), seats ${game.seats.map((s) => s.name).join(", ")}`);

// Whoever is to act moves first: seat 0 in GIRL.
const before = await girlView(game.id, game.seats[0]?.token ?? fail("no seat 0"));
const seat = before.to_act[0];
if (seat === undefined) fail("nobody is to act");
const token = game.seats[seat]?.token ?? fail(`no token for seat ${seat}`);
const view = seat === 0 ? before : await girlView(game.id, token);
const legal = view.legal_actions[0] ?? fail(`seat ${seat} has no legal action`);
const action = moveFrom(legal);
console.log(`seat ${seat} (${view.you?.hand.length ?? 0} cards in hand) sends ${JSON.stringify(action)}`);

const key = `play-${game.id}`;
const moved = await client.POST("/v1/games/{id}/actions", {
  params: {
    path: { id: game.id },
    header: { "If-Match": `"${view.version}"`, "Idempotency-Key": key },
  },
  headers: { Authorization: `Bearer ${token}` },
  body: action,
});
if (moved.data === undefined) fail(`the move was refused (${moved.response.status})`, moved.error);
const after = moved.data;
if (after.game !== "girl") fail(`the answer is a view of ${after.game}`);
if (after.version <= view.version) fail(`the version did not move on from ${view.version}`);
if (after.receipt == null) fail("the move's answer has no receipt");
const etag = moved.response.headers.get("ETag");
if (etag !== `"${after.version}"`) fail(`ETag ${etag} is not the new version ${after.version}`);
console.log(`moved: version ${after.version}, phase ${after.public.phase}, now to act: ${after.to_act.join(", ")}`);

// The same move again, without the key, is refused with a typed problem.
const again = await client.POST("/v1/games/{id}/actions", {
  params: { path: { id: game.id }, header: { "If-Match": `"${view.version}"` } },
  headers: { Authorization: `Bearer ${token}` },
  body: action,
});
if (again.data !== undefined) fail("a stale move was accepted");
const problem: Problem = again.error;
if (again.response.status !== 412 || problem.type !== "/problems/version-mismatch") {
  fail(`a stale move answered ${again.response.status}`, problem);
}
console.log(`a stale move is refused: ${problem.status} ${problem.type} (now at ${problem.current_version})`);
