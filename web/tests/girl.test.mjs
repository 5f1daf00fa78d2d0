import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { claim, host, join, launch, playToTheEnd, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("two people on two devices host, invite, join and play a whole game of GIRL through the page", async () => {
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea", { width: 390, height: 844 });
  const { links } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  assert.equal(links.length, 1, "one invitation link, for seat 2");
  await claim(bea, links[0]);
  await shot(ann, "girl-table-desk");
  await shot(bea, "girl-table-phone");
  const moves = await playToTheEnd([ann, bea]);
  assert.ok(moves > 5, `the game took ${moves} moves`);
  await ann.getByText(/Game over\. Scores:/).first().waitFor();
  await shot(ann, "girl-finished");
  assert.deepEqual([...ann.errors, ...bea.errors], []);
});
