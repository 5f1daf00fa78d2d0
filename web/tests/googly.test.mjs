import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, claim, join, launch, openTable, playToTheEnd, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a two-player GOOGLY match is played through the page to its result, with the scorecard kept live", async () => {
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea");
  const hosted = await asPlayer(ann, "POST", "/v1/me/games", { game: "googly", seats: [{ kind: "me" }, { kind: "invitation" }], options: { variant: "two_player" } });
  await claim(bea, `${BASE}${hosted.seats[1].invitation.link}`);
  await openTable(ann, hosted.id, 1);
  await shot(ann, "googly-start");
  const moves = await playToTheEnd([ann, bea], 5000);
  assert.ok(moves > 20, `the match took ${moves} moves`);
  const printed = await (await fetch(`${BASE}/v1/games/${hosted.id}/scorecard`, { headers: { accept: "text/plain" } })).text();
  await ann.waitForFunction((text) => document.querySelector(".scorecard")?.textContent === text, printed);
  assert.match(printed, /\S/);
  await shot(ann, "googly-finished");

  await ann.getByRole("link", { name: /^Series/ }).click();
  const stats = await (await fetch(`${BASE}/v1/statistics/googly?games=${hosted.id}`)).json();
  const table = ann.getByRole("table", { name: "County Championship" });
  await table.waitFor();
  for (const standing of stats.table) {
    await table.getByRole("row", { name: new RegExp(`^${standing.team} .* ${standing.points}$`) }).waitFor();
  }
  const best = stats.batting[0];
  await ann.getByRole("table", { name: "Batting averages" }).getByRole("row", { name: new RegExp(`^${best.player} ${best.team} .* ${best.runs} `) }).waitFor();
  await shot(ann, "googly-series");
});
