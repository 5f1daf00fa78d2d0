// Accessibility: axe-core (the engine behind Lighthouse's and most browsers' checks) run on
// every page of the client and on a table of each of the five games, mid-game and after the
// end, at desktop and phone sizes. No critical and no serious violation is allowed.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { BASE, asPlayer, host, join, launch, move, hasMove, shot } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { width: 390, height: 844 };

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** axe's critical and serious violations on the page as it stands, as readable lines. */
async function violations(page) {
  // Evaluated through the browser's debugging protocol, so the page's script policy (which
  // allows only its own script) does not apply to the checker.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

async function clean(page, name) {
  // A card still fading in has its text at part opacity: check the page as it comes to rest.
  await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => null))));
  const found = await violations(page);
  if (found.length > 0) await shot(page, `axe-${name}`);
  assert.deepEqual(found, [], `${name}: ${found.join("\n")}`);
}

for (const [size, viewport] of [["desktop", undefined], ["phone", PHONE]]) {
  test(`every page outside a table has no critical or serious accessibility fault (${size})`, async () => {
    const context = await browser.newContext(viewport ? { viewport } : {});
    const page = await context.newPage();
    await page.goto(`${BASE}/play/welcome`);
    await page.getByLabel("Your name").waitFor();
    await clean(page, `welcome-${size}`);
    await page.goto(`${BASE}/play/sign-in`);
    await page.getByLabel("One-time code").waitFor();
    await clean(page, `sign-in-${size}`);
    await context.close();

    const ann = await join(browser, "Ann", viewport);
    await clean(ann, `inbox-${size}`);
    await ann.goto(`${BASE}/play/new`);
    await ann.getByRole("button", { name: "Create the game" }).waitFor();
    await clean(ann, `new-game-${size}`);
    await ann.goto(`${BASE}/play/account`);
    await ann.getByRole("button", { name: "Sign in another device" }).waitFor();
    // Its passkeys (at 127.0.0.1 the section explains they need the name localhost), email
    // addresses and notice preferences too (the check's server has a mail server).
    await ann.getByRole("heading", { name: "Passkeys" }).waitFor();
    await ann.getByRole("heading", { name: "What you are told" }).waitFor();
    await ann.getByRole("heading", { name: "Email", exact: true }).waitFor();
    await clean(ann, `account-${size}`);
    await ann.goto(`${BASE}/play/googly/series`);
    await ann.locator("main").waitFor();
    await clean(ann, `series-${size}`);
    // A match's page: its standings and deals.
    const { id } = await host(ann, { game: "girl", players: 2, seats: ["me", "bot:steady"], match: 3 });
    const dealt = await asPlayer(ann, "GET", `/v1/games/${id}`);
    await ann.goto(`${BASE}/play/matches/${dealt.deal_of.match}`);
    await ann.locator(".standings tbody tr").first().waitFor();
    await clean(ann, `match-${size}`);
  });

  for (const [game, players] of [["girl", 3], ["car", 3], ["british-birds", 3], ["history-of-england", 3], ["googly", 2]]) {
    test(`a table of ${game}, its replay and its waiting page have no critical or serious accessibility fault (${size})`, async () => {
      const ann = await join(browser, "Ann", viewport);
      const seats = ["me", ...Array.from({ length: players - 1 }, () => "bot:steady")];
      const waiting = await host(ann, { game, players, seats: ["me", "invitation", ...seats.slice(2)] });
      await clean(ann, `${game}-waiting-${size}`);
      const { id } = await host(ann, { game, players, seats });
      // Checked when the page offers a move (the fullest state: the hand to pick from, the
      // move panel, the hint), and again after making it, with the story begun.
      await ann.locator("section.actions, .hand button.card").first().waitFor();
      await clean(ann, `${game}-table-${size}`);
      if (await hasMove(ann)) await move(ann);
      await clean(ann, `${game}-table-after-a-move-${size}`);
      await ann.goto(`${BASE}/play/games/${id}/replay`);
      await ann.getByRole("heading", { name: "Audit" }).waitFor();
      await clean(ann, `${game}-replay-${size}`);
      assert.ok(waiting.id);
      await ann.context().close();
    });
  }
}
