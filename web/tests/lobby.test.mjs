// The open tables: a host lists a table from the New game page, and another player finds it
// under "Open tables" on their games page and joins it with one click.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, join, launch, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a table listed from the New game page is found under Open tables and joined with one click", async () => {
  // Bea is on her games page first: the table she will join is listed after it loaded.
  const bea = await join(browser, "Bea");
  const ann = await join(browser, "Ann");

  // Ann hosts a two-seat GIRL game, seat 2 open to anyone, and lists it.
  await ann.getByRole("link", { name: "New game" }).first().click();
  await ann.getByLabel("Game", { exact: true }).selectOption("girl");
  await ann.getByLabel("Players").selectOption("2");
  const listing = ann.getByLabel("List this table so anyone can find it and join");
  // No seat is open to anyone yet (seat 2 is by invitation): the box is off, and says why.
  assert.equal(await listing.isDisabled(), true);
  await ann.getByText("To list it, make at least one seat “Anyone who joins”.").waitFor();
  await ann.getByLabel("Seat 2", { exact: true }).selectOption("anyone");
  assert.equal(await listing.isEnabled(), true);
  await listing.check();
  const hours = ann.getByLabel("Listed for");
  assert.equal(await hours.inputValue(), "24");
  assert.deepEqual(await hours.locator("option").allTextContents(), ["1 hour", "6 hours", "a day", "3 days", "a week"]);
  await shot(ann, "lobby-new-game-listed");
  await ann.getByRole("button", { name: "Create the game" }).click();
  await ann.getByRole("heading", { name: "Invite your friends" }).waitFor();
  const listed = await ann.locator("p.listed").innerText();
  assert.match(listed, /^The table is listed until .+: anyone may find it under “Open tables” and join\.$/, listed);
  const id = (await ann.getByRole("link", { name: "Go to the table" }).getAttribute("href")).split("/").pop();
  const hosted = await asPlayer(ann, "GET", `/v1/games/${id}`);
  assert.equal(hosted.status, "waiting");
  assert.ok(hosted.seating.listed_until, "the game's view says it is listed");

  // On her own games page, Ann's table is hers: no Join button.
  await ann.goto(`${BASE}/play`);
  const annRow = ann.locator(`.open-tables .open-table[data-table="${id}"]`);
  await annRow.waitFor();
  await annRow.getByText("your table").waitFor();
  assert.equal(await annRow.getByRole("button", { name: /Join/ }).count(), 0);
  assert.match(await annRow.innerText(), /GIRL hosted by you/);
  await shot(ann, "lobby-your-table");

  // Bea's page loaded before the table was listed: Refresh shows it, with what it is.
  assert.equal(await bea.locator(`.open-table[data-table="${id}"]`).count(), 0);
  await bea.getByRole("button", { name: "Refresh" }).click();
  const row = bea.locator(`.open-tables .open-table[data-table="${id}"]`);
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, /GIRL hosted by Ann/, text);
  assert.match(text, /1 of 2 seats filled/, text);
  assert.match(text, /No clock · listed until /, text);
  assert.doesNotMatch(text, /your table/, text);
  // Chosen by game: The CAR Game's tables do not include it; all games do again.
  await bea.getByLabel("Show tables of").selectOption("car");
  await row.waitFor({ state: "detached" });
  await bea.locator(".open-tables").getByText("No open The CAR Game tables right now: host one and list it.").waitFor();
  await bea.getByLabel("Show tables of").selectOption("");
  await row.waitFor();
  await shot(bea, "lobby-open-tables");

  // Bea joins: she lands at the table, seated, and the game begins.
  await row.getByRole("button", { name: "Join" }).click();
  await bea.waitForURL(`${BASE}/play/games/${id}`);
  await bea.locator(".seats-list .seat.mine").waitFor();
  await bea.locator('.table-body[data-status="active"]').waitFor();
  const view = await asPlayer(bea, "GET", `/v1/games/${id}`);
  assert.equal(view.status, "active");
  assert.equal(view.you.seat, 1);
  assert.equal(view.seating.seats[1].holder.name, "Bea");
  await shot(bea, "lobby-joined");

  // The game has begun: the table has left the list.
  await ann.goto(`${BASE}/play`);
  await ann.locator(`.inbox-row[data-game="${id}"]`).waitFor();
  await ann.getByRole("heading", { name: "Open tables" }).waitFor();
  await ann.waitForFunction(() => document.querySelector(".open-tables")?.children.length > 0);
  assert.equal(await ann.locator(`.open-table[data-table="${id}"]`).count(), 0);
  assert.deepEqual(ann.errors, []);
  assert.deepEqual(bea.errors, []);
});
