// Tables part-way through a game, for the card tests and the docs' screenshots: a game dealt
// with a fixed seed and played on through the API with steady random moves, then opened in
// a page as seat 0.
import { BASE, openTable, seed } from "./helpers.mjs";

/** Each game as pictured: its players, options, a seed, and how many moves into the game. */
export const GAMES = {
  // A trick under way: another seat's lay face down on the table, mine to make.
  girl: { players: 3, moves: 14, seed: 7, until: (view) => view.seats.some((seat) => seat.laid) },
  car: { players: 3, moves: 14, seed: 7, until: (view) => view.seats.some((seat) => seat.laid) },
  "british-birds": { players: 3, moves: 24, seed: 3 },
  "history-of-england": { players: 3, moves: 40, seed: 5 },
  // GOOGLY has no hands: part-way through an over, its cards on the table.
  googly: { players: 2, moves: 60, seed: 2, options: { variant: "two_player" }, until: (view) => (view.public.current?.this_over?.length ?? 0) >= 3 },
};

/** A small steady random number generator: the same pictures each run. */
function random(n) {
  let state = n * 2654435761;
  return () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

/** A legal action made concrete: each choice `{choose, from}` filled from its list. */
function concrete(action, next) {
  const move = {};
  for (const [key, value] of Object.entries(action)) {
    if (value && typeof value === "object" && "choose" in value) {
      const from = [...value.from].sort(() => next() - 0.5);
      move[key] = from.slice(0, value.choose);
    } else {
      move[key] = value;
    }
  }
  return move;
}

/** Deals a game and plays it `moves` moves on with random legal moves, stopping when it is
 * seat 0's move; answers its seats' tokens. */
export async function midGame(game, { players, moves, seed: n, options, until = () => true }) {
  const created = await fetch(`${BASE}/v1/games`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, players: Array.from({ length: players }, (_, i) => ({ name: ["Ann", "Bea", "Cat", "Dot"][i] })), seed: seed(n), ...(options ? { options } : {}) }),
  }).then((r) => r.json());
  const tokens = created.seats.map((seat) => seat.token);
  const view = (seat) => fetch(`${BASE}/v1/games/${created.id}`, { headers: { authorization: `Bearer ${tokens[seat]}` } }).then((r) => r.json());
  const next = random(n);
  for (let made = 0; made < moves * 6; made++) {
    const first = await view(0);
    const seats = first.to_act;
    if (seats.length === 0) break;
    if (made >= moves && seats.includes(0) && until(first)) break;
    const seat = seats[Math.floor(next() * seats.length)];
    const mine = await view(seat);
    // Asks and lays before passes: a table with cards on it.
    const legal = mine.legal_actions.filter((action) => action.type !== "declare" && action.type !== "resign");
    const pool = legal.length > 0 ? legal : mine.legal_actions;
    const action = concrete(pool[Math.floor(next() * pool.length)], next);
    const response = await fetch(`${BASE}/v1/games/${created.id}/actions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens[seat]}`, "content-type": "application/json", "if-match": `"${mine.version}"` },
      body: JSON.stringify(action),
    });
    if (!response.ok) throw new Error(`${game}: ${response.status} ${await response.text()}`);
  }
  return { id: created.id, tokens };
}

/** Opens the table as seat 0 on a page of the given size. */
export async function seatPage(browser, id, token, viewport, options = { reducedMotion: "reduce" }) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  await page.goto(`${BASE}/play`);
  await page.evaluate((t) => localStorage.setItem("parlour.token", t), token);
  await openTable(page, id, 1);
  return page;
}

