// The pictures in docs/images/: each game's table part-way through a game, at desk and phone
// size, drawn by the bundle in PARLOUR_WEB_DIST (or the server's own). Run by hand against a
// live server (see docs/web-client.md); not part of `npm test`.
//
//   PARLOUR_URL=http://127.0.0.1:PORT PARLOUR_WEB_DIST=dist node tests/screenshots.mjs [game ...]
import { mkdirSync } from "node:fs";
import { launch } from "./helpers.mjs";
import { GAMES, midGame, seatPage } from "./tables.mjs";

const OUT = new URL("../../docs/images/", import.meta.url).pathname;
mkdirSync(OUT, { recursive: true });

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
