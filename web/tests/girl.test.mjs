import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, cardIdsIn, claim, host, join, launch, openTable, playToTheEnd, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("two people on two devices host, invite, join and play a whole game of GIRL through the page; nobody else's page holds a hidden card; the replay matches state?at and the audit verifies", async () => {
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea", { width: 390, height: 844 });
  const { links, id } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  assert.equal(links.length, 1, "one invitation link, for seat 2");
  await claim(bea, links[0]);
  const spectator = await (await browser.newContext()).newPage();
  await openTable(spectator, id, 1);
  await shot(ann, "girl-table-desk");
  await shot(bea, "girl-table-phone");

  // After every move: none of Ann's cards in hand or face-down lay is anywhere in Bea's page
  // or a spectator's, and the same for Bea's cards in Ann's page.
  let checked = 0;
  let hiddenSeen = 0;
  const moves = await playToTheEnd([ann, bea], 2000, async () => {
    const [annView, beaView] = [await asPlayer(ann, "GET", `/v1/games/${id}`), await asPlayer(bea, "GET", `/v1/games/${id}`)];
    if (annView.status !== "active") return;
    // A card laid face up in the last trick and then taken back into hand is known to all:
    // hidden means absent from what a spectator is shown.
    const open = JSON.stringify(await (await fetch(`${BASE}/v1/games/${id}`)).json());
    const annHidden = [...annView.you.hand, ...annView.you.laid].filter((card) => !open.includes(`"${card}"`));
    const beaHidden = [...beaView.you.hand, ...beaView.you.laid].filter((card) => !open.includes(`"${card}"`));
    for (const page of [ann, bea, spectator]) {
      await page.waitForFunction((v) => Number(document.querySelector(".table-body")?.getAttribute("data-version")) >= v, annView.version);
    }
    assert.deepEqual(await cardIdsIn(bea, annHidden), [], "Bea's page holds none of Ann's hidden cards");
    assert.deepEqual(await cardIdsIn(spectator, [...annHidden, ...beaHidden]), [], "a spectator's page holds no hidden card");
    assert.deepEqual(await cardIdsIn(ann, beaHidden), [], "Ann's page holds none of Bea's hidden cards");
    checked++;
    hiddenSeen += annHidden.length + beaHidden.length;
  });
  assert.ok(moves > 5 && checked > 5, `the game took ${moves} moves, ${checked} checked`);
  assert.ok(hiddenSeen > checked, "the checks looked for hidden cards");
  await ann.getByText(/Game over\. Scores:/).first().waitFor();
  await shot(ann, "girl-finished");

  await ann.getByRole("link", { name: "Replay and audit" }).click();
  const slider = ann.getByLabel("Point in the game");
  await slider.waitFor();
  const at = 8;
  await slider.fill(String(at));
  await ann.locator(`.board [data-version="${at}"]`).waitFor();
  const past = await (await fetch(`${BASE}/v1/games/${id}/state?at=${at}`)).json();
  const board = await ann.locator(".board").textContent();
  assert.ok(board.includes(`Centre pack: ${past.public.centre_pack}`), "the board shows the centre pack as it was");
  for (const seat of past.seats) assert.ok(board.includes(`${seat.name}: ${seat.hand} in hand, ${seat.won} won`), `${seat.name} as at ${at}`);
  await ann.getByRole("button", { name: "One on" }).click();
  await ann.locator(`.board [data-version="${at + 1}"]`).waitFor();
  await shot(ann, "girl-replay");
  await ann.getByRole("button", { name: "Check this game" }).click();
  await ann.locator('[data-verdict="ok"]').waitFor();
  const audit = await (await fetch(`${BASE}/v1/games/${id}/audit`)).json();
  await ann.locator(`[data-seed="${audit.seed}"]`).waitFor();
  await shot(ann, "girl-audit");
  assert.deepEqual([...ann.errors, ...bea.errors], []);
});
