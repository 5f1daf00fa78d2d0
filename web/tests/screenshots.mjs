// The pictures in docs/images/: each game's table part-way through a game, at desk and phone
// size, drawn by the bundle in PARLOUR_WEB_DIST (or the server's own). Run by hand against a
// live server (see docs/web-client.md); not part of `npm test`.
//
//   PARLOUR_URL=http://127.0.0.1:PORT PARLOUR_WEB_DIST=dist node tests/screenshots.mjs [game ...]
import { mkdirSync } from "node:fs";
import { BASE, launch, openTable, seed } from "./helpers.mjs";

const OUT = new URL("../../docs/images/", import.meta.url).pathname;
mkdirSync(OUT, { recursive: true });

/** Each game as pictured: its players, options, a seed, and how many moves into the game. */
export const GAMES = {
  girl: { players: 3, moves: 14, seed: 7 },
  car: { players: 3, moves: 14, seed: 7 },
  "british-birds": { players: 3, moves: 24, seed: 3 },
  "history-of-england": { players: 3, moves: 40, seed: 5 },
  googly: { players: 2, moves: 90, seed: 2, options: { variant: "two_player" } },
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
export async function midGame(game, { players, moves, seed: n, options }) {
  const created = await fetch(`${BASE}/v1/games`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, players: Array.from({ length: players }, (_, i) => ({ name: ["Ann", "Bea", "Cat", "Dot"][i] })), seed: seed(n), ...(options ? { options } : {}) }),
  }).then((r) => r.json());
  const tokens = created.seats.map((seat) => seat.token);
  const view = (seat) => fetch(`${BASE}/v1/games/${created.id}`, { headers: { authorization: `Bearer ${tokens[seat]}` } }).then((r) => r.json());
  const next = random(n);
  for (let made = 0; made < moves * 3; made++) {
    const seats = (await view(0)).to_act;
    if (seats.length === 0) break;
    if (made >= moves && seats.includes(0)) break;
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
export async function seatPage(browser, id, token, viewport) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, reducedMotion: "reduce" });
  const page = await context.newPage();
  await page.goto(`${BASE}/play`);
  await page.evaluate((t) => localStorage.setItem("parlour.token", t), token);
  await openTable(page, id, 1);
  return page;
}

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

async function main() {
  const wanted = process.argv.slice(2);
  const browser = await launch();
  try {
    for (const [game, plan] of Object.entries(GAMES)) {
      if (wanted.length > 0 && !wanted.includes(game)) continue;
      const { id, tokens } = await midGame(game, plan);
      for (const [size, viewport] of Object.entries(SIZES)) {
        const page = await seatPage(browser, id, tokens[0], viewport);
        await page.waitForTimeout(600);
        // The board and the hand: from the table's heading down one screen.
        await page.locator(".table-body h1").scrollIntoViewIfNeeded();
        await page.evaluate(() => window.scrollTo(0, document.querySelector(".seats-list")?.getBoundingClientRect().top + scrollY - 8));
        await page.screenshot({ path: `${OUT}${game}-${size}.png` });
        console.log(`${OUT}${game}-${size}.png`);
        await page.context().close();
      }
    }
  } finally {
    await browser.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
