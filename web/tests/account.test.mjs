import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, claim, concrete, host, join, launch, openTable, playToTheEnd, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a one-time code from the first device signs the account in on a second, which the first can then revoke", async () => {
  const laptop = await join(browser, "Dot");
  await laptop.getByRole("link", { name: "Account" }).click();
  await laptop.getByRole("button", { name: "Sign in another device" }).click();
  const code = await laptop.getByLabel("One-time code").inputValue();
  const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await phone.goto(`${BASE}/play/sign-in`);
  await phone.getByLabel("One-time code").fill(code);
  await phone.getByLabel("Name for this device").fill("phone");
  await phone.getByRole("button", { name: "Sign in" }).click();
  await phone.getByRole("heading", { name: "Dot’s games" }).waitFor();
  await laptop.reload();
  const phoneRow = laptop.locator(".devices li", { hasText: "phone" });
  await phoneRow.waitFor();
  await shot(laptop, "account-devices");
  await phoneRow.getByRole("button", { name: "Revoke" }).click();
  await phoneRow.waitFor({ state: "detached" });
  await phone.reload();
  await phone.getByRole("heading", { name: "Play classic British card games" }).waitFor();
});

test("the inbox says live, and in the tab's title, when it is my move", async () => {
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea");
  const { links, id } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  await claim(bea, links[0]);
  const view = await asPlayer(ann, "GET", `/v1/games/${id}`);
  const [mover, waiter] = view.to_act.includes(0) ? [ann, bea] : [bea, ann];
  await waiter.goto(`${BASE}/play`);
  await waiter.locator(`.inbox-row[data-game="${id}"]`).waitFor();
  assert.equal(await waiter.title(), "My games — Parlour");
  const moverView = await asPlayer(mover, "GET", `/v1/games/${id}`);
  await asPlayer(mover, "POST", `/v1/games/${id}/actions`, moverView.legal_actions[0]);
  await waiter.waitForFunction(() => document.title === "(1) Your move — Parlour");
  await waiter.locator(`.inbox-row.asked-move[data-game="${id}"]`).waitFor();
  await shot(waiter, "inbox-your-move");
});

test("each inbox row names the other players and whose move it is, and a finished game moves to the history with how it ended", async () => {
  const cy = await join(browser, "Cy");
  const di = await join(browser, "Di");
  const { links, id } = await host(cy, { game: "girl", players: 3, seats: ["me", "invitation", "bot:steady"] });
  await cy.goto(`${BASE}/play`);
  const row = cy.locator(`.inbox-row[data-game="${id}"]`);
  await row.getByText("Waiting for 1 player").waitFor();
  assert.match(await row.locator(".inbox-title").innerText(), /^GIRL with an open seat and .+$/);
  await claim(di, links[0]);
  await cy.goto(`${BASE}/play`);
  const title = await row.locator(".inbox-title").innerText();
  assert.match(title, /^GIRL with Di and .+$/, title);
  // The last thing that happened, and when the game began.
  const meta = await row.locator(".inbox-meta").innerText();
  assert.match(meta, /^(.+ moved|A seat was taken|A bot took a seat|The cards were dealt), (just now|\d+ min ago)\. Started /, meta);
  const view = await asPlayer(cy, "GET", `/v1/games/${id}`);
  const badge = await row.locator(".badge").innerText();
  if (view.to_act.includes(0)) assert.equal(badge, "Your move");
  else assert.match(badge, /^(Di|.*bot.*) to move$/i, badge);
  // Di resigns: the row leaves the games in play for the history, saying so.
  await asPlayer(di, "POST", `/v1/games/${id}/resign`);
  await cy.goto(`${BASE}/play`);
  const done = cy.locator(`.history .inbox-row[data-game="${id}"]`);
  await done.getByText("Di resigned.").waitFor();
  assert.equal(await cy.locator(`.inbox:not(.history) .inbox-row[data-game="${id}"]`).count(), 0);
  await shot(cy, "inbox-history");
});

test("the history shows a page of finished games, and a button shows the older ones, each once and newest first", async () => {
  const eve = await join(browser, "Eve");
  // More finished games than the first page holds (20 by default): each hosted against a bot
  // and resigned at once.
  for (let n = 0; n < 22; n++) {
    const hosted = await asPlayer(eve, "POST", "/v1/me/games", { game: "british-birds", seats: [{ kind: "me" }, { kind: "bot", level: "steady" }] });
    await asPlayer(eve, "POST", `/v1/games/${hosted.id}/resign`);
  }
  // The order the server gives, all on one page.
  const all = (await asPlayer(eve, "GET", "/v1/me/games?status=finished&limit=100")).games.map((game) => game.id);
  assert.equal(all.length, 22);
  await eve.goto(`${BASE}/play`);
  const rows = eve.locator(".history .inbox-row");
  const older = eve.getByRole("button", { name: "Show older games" });
  await older.waitFor();
  assert.equal(await rows.count(), 20);
  await older.click();
  await eve.waitForFunction(() => document.querySelectorAll(".history .inbox-row").length === 22);
  await older.waitFor({ state: "hidden" });
  assert.deepEqual(await rows.evaluateAll((items) => items.map((item) => item.dataset.game)), all);
  await eve.getByText("2 older games shown; that is all of them.").waitFor();
  // A reload (on any notice) starts again from the first page, without doubling a row.
  await eve.evaluate(() => window.dispatchEvent(new Event("parlour:notice")));
  await older.waitFor();
  assert.deepEqual(await rows.evaluateAll((items) => items.map((item) => item.dataset.game)), all.slice(0, 20));
  assert.deepEqual(eve.errors, []);
  await shot(eve, "inbox-history-older");
});

test("a bot fills an empty seat chosen in the lobby, and the game is played to the end against it", async () => {
  const ann = await join(browser, "Ann");
  await host(ann, { game: "british-birds", players: 2, seats: ["me", "bot:steady"] });
  await ann.locator(".badge", { hasText: "bot: steady" }).waitFor();
  await playToTheEnd([ann], 3000);
  await ann.getByText(/Game over\. Points:/).first().waitFor();
  await shot(ann, "british-birds-against-a-bot");
});

for (const [game, players] of [["car", 3], ["history-of-england", 3]]) {
  test(`a game of ${game} against two bots is played to the end through the page and replays`, async () => {
    const ann = await join(browser, "Ann");
    const { id } = await host(ann, { game, players, seats: ["me", "bot:random", "bot:steady"] });
    await playToTheEnd([ann], 3000);
    await shot(ann, `${game}-finished`);
    await ann.getByRole("link", { name: "Replay and audit" }).click();
    await ann.getByRole("button", { name: "To the start" }).click();
    await ann.locator('.board [data-version="0"]').waitFor();
    await ann.getByRole("button", { name: "Check this game" }).click();
    await ann.locator('[data-verdict="ok"]').waitFor();
    const view = await asPlayer(ann, "GET", `/v1/games/${id}`);
    assert.equal(view.status, "finished");
  });
}

test("a match hosted in the lobby is played deal after deal against a bot, each deal linked to its standings and its results panel giving the match standing", async () => {
  const ann = await join(browser, "Ann");
  const { id } = await host(ann, { game: "girl", players: 2, seats: ["me", "bot:random"], match: 3 });
  await ann.getByRole("link", { name: /Deal 1 of a match/ }).waitFor();
  const first = await asPlayer(ann, "GET", `/v1/games/${id}`);
  const matchId = first.deal_of.match;
  assert.equal(first.deal_of.deal, 0);
  for (let deal = 0; ; deal++) {
    await playToTheEnd([ann], 3000);
    // The deal's results panel gives the match standing after it.
    const standing = ann.locator(".results .match-standing");
    await standing.locator("h3", { hasText: `The match after deal ${deal + 1} ` }).waitFor();
    const after = await asPlayer(ann, "GET", `/v1/matches/${matchId}`);
    for (const c of after.competitors) assert.ok((await standing.textContent()).includes(`${c.name} ${c.total}`), `${c.name}'s total is in the results panel`);
    await ann.getByRole("link", { name: /of a match: the standings/ }).click();
    await ann.locator(`main[data-match="${matchId}"]`).waitFor();
    const view = await asPlayer(ann, "GET", `/v1/matches/${matchId}`);
    const rows = await ann.locator(".standings tbody tr").count();
    assert.equal(rows, 2);
    if (view.status !== "playing") {
      await ann.locator("#match-status", { hasText: /^Over/ }).waitFor();
      await ann.locator(".standings tr.winner").first().waitFor();
      assert.ok(view.competitors.some((c) => c.total >= 3), JSON.stringify(view));
      await shot(ann, "match-over");
      break;
    }
    assert.ok(deal < 20, "the match reaches its target");
    // The next deal is dealt a moment after the last ended, and the page shows it.
    await ann.getByRole("link", { name: "Go to the deal being played" }).click();
    await ann.getByRole("link", { name: new RegExp(`Deal ${deal + 2} of a match`) }).waitFor();
  }
  const inbox = await asPlayer(ann, "GET", "/v1/me/games");
  assert.ok(inbox.games.every((game) => game.deal_of?.match === matchId), JSON.stringify(inbox));
});

test("a server that cannot be reached keeps the device signed in and is asked again until it answers; only a 401 signs out", async () => {
  const ann = await join(browser, "Nan");
  const token = await ann.evaluate(() => localStorage.getItem("parlour.token"));
  // The database blips: /v1/me answers 503 twice, then the connection is refused once.
  let failures = 0;
  await ann.route("**/v1/me", async (route) => {
    failures += 1;
    if (failures <= 2) {
      await route.fulfill({ status: 503, contentType: "application/problem+json", body: JSON.stringify({ type: "/problems/unavailable", title: "Unavailable", status: 503 }) });
    } else if (failures === 3) {
      await route.abort("connectionrefused");
    } else {
      await route.continue();
    }
  });
  await ann.goto(`${BASE}/play`);
  await ann.locator("[data-reaching]").waitFor();
  assert.match(await ann.locator("[data-reaching]").textContent(), /Can’t reach the server; trying again/);
  assert.equal(await ann.evaluate(() => localStorage.getItem("parlour.token")), token);
  await ann.getByRole("heading", { name: "Nan’s games" }).waitFor();
  assert.equal(failures, 4);
  assert.equal(await ann.locator("[data-reaching]").count(), 0);
  assert.equal(await ann.evaluate(() => localStorage.getItem("parlour.token")), token);
  await ann.unroute("**/v1/me");
  // A token the server says it does not know is let go.
  await ann.evaluate(() => localStorage.setItem("parlour.token", "pt_not-a-token-the-server-knows"));
  await ann.goto(`${BASE}/play`);
  await ann.getByRole("heading", { name: "Play classic British card games" }).waitFor();
  assert.equal(await ann.evaluate(() => localStorage.getItem("parlour.token")), null);
});

test("a move in another game reaches a player sitting at a table: the title counts it and a notification names the game and the other player", async () => {
  const ann = await join(browser, "Ada");
  // The page's notifications, as the page makes them (a headless browser shows none).
  await ann.context().addInitScript(() => {
    window.__shown = [];
    window.Notification = class {
      static permission = "granted";
      static requestPermission = async () => "granted";
      constructor(title, options) {
        window.__shown.push({ title, body: options?.body ?? "" });
      }
    };
  });
  const bea = await join(browser, "Bex");
  const { links: firstLinks, id: first } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  await claim(bea, firstLinks[0]);
  const { links, id: second } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  await claim(bea, links[0]);
  // Ann sits at the first table, and the page is reloaded so that the script above runs.
  await openTable(ann, first);
  // In the second game, whoever is to move moves (through the API) until a move of Bex's
  // makes it Ann's move: that commit is told to Ann's account.
  for (let moves = 0; ; moves++) {
    assert.ok(moves < 12, "Bex's move never made it Ann's move");
    const bexs = await asPlayer(bea, "GET", `/v1/games/${second}`);
    if (bexs.to_act.includes(1)) {
      await asPlayer(bea, "POST", `/v1/games/${second}/actions`, concrete(bexs.legal_actions[0]));
      const after = await asPlayer(ann, "GET", `/v1/games/${second}`);
      if (after.to_act.includes(0)) break;
    } else {
      const anns = await asPlayer(ann, "GET", `/v1/games/${second}`);
      await asPlayer(ann, "POST", `/v1/games/${second}/actions`, concrete(anns.legal_actions[0]));
    }
  }
  await ann.waitForFunction(() => window.__shown.length > 0);
  const [shown] = await ann.evaluate(() => window.__shown);
  assert.equal(shown.title, "Parlour: Your move");
  assert.equal(shown.body, "GIRL against Bex");
  // The title counts every active game waiting for Ann's move, this one among them.
  const inbox = await asPlayer(ann, "GET", "/v1/me/games");
  const waiting = inbox.games.filter((game) => game.asked === "move" && game.status === "active").map((game) => game.id);
  assert.ok(waiting.includes(second));
  await ann.waitForFunction((n) => document.title.startsWith(`(${n}) `) && document.title.endsWith("GIRL — Parlour"), waiting.length);
  // The table Ann sits at is still hers: it did not move on to the other game.
  assert.equal(new URL(ann.url()).pathname, `/play/games/${first}`);
});

test("the host manages a waiting table: its invitation links shown again, a new link that retires the old, a seat withdrawn, and the game called off", async () => {
  const ann = await join(browser, "Hal");
  const bea = await join(browser, "Ivy");
  const { links, id } = await host(ann, { game: "girl", players: 3, seats: ["me", "invitation", "invitation"] });
  // Back at the table later: the links are shown again, as they were given.
  await openTable(ann, id);
  const seat2 = ann.locator('[data-manage-seat="1"]');
  const seat3 = ann.locator('[data-manage-seat="2"]');
  assert.equal(await seat2.getByLabel("Seat 2 invitation link").inputValue(), links[0]);
  assert.equal(await seat3.getByLabel("Seat 3 invitation link").inputValue(), links[1]);
  // A new link for seat 2: the old one no longer works, the new one does.
  await seat2.getByRole("button", { name: "New invitation link" }).click();
  await ann.waitForFunction((old) => {
    const input = document.querySelector('[data-manage-seat="1"] input');
    return input instanceof HTMLInputElement && input.value !== old;
  }, links[0]);
  const fresh = await seat2.getByLabel("Seat 2 invitation link").inputValue();
  await bea.goto(links[0]);
  await bea.getByRole("button", { name: /^Take seat/ }).click();
  await bea.locator(".error").waitFor();
  // Said in plain words, not the server's developer's detail or its code.
  assert.equal(await bea.locator(".error").innerText(), "This invitation is not for you, or it was replaced or withdrawn: ask the host for a new link.");
  await claim(bea, fresh);
  await ann.locator('[data-manage-seat="1"]').waitFor({ state: "detached" });
  // Seat 3 withdrawn: nobody may claim it, and it says so.
  await seat3.getByRole("button", { name: "Withdraw" }).click();
  await seat3.getByText("not offered (withdrawn)").waitFor();
  assert.equal(await seat3.getByLabel("Seat 3 invitation link").count(), 0);
  await shot(ann, "manage-waiting-table");
  // Called off.
  ann.once("dialog", (dialog) => void dialog.accept());
  await ann.getByRole("button", { name: "Call the game off" }).click();
  await ann.getByRole("heading", { name: "Hal’s games" }).waitFor();
  const view = await asPlayer(ann, "GET", `/v1/games/${id}`);
  assert.equal(view.status, "finished");
  assert.equal(view.result.ended_by, "abort");
});

test("the host gives the last empty seat of a waiting table to a bot, and the game begins", async () => {
  const ann = await join(browser, "Joe");
  const { id } = await host(ann, { game: "british-birds", players: 2, seats: ["me", "invitation"] });
  await openTable(ann, id);
  const seat2 = ann.locator('[data-manage-seat="1"]');
  await seat2.getByLabel("Seat 2 bot level").selectOption("expert");
  await seat2.getByRole("button", { name: "Give the seat to this bot" }).click();
  await ann.locator('.table-body[data-status="active"]').waitFor();
  const view = await asPlayer(ann, "GET", `/v1/games/${id}`);
  assert.equal(view.status, "active");
  assert.equal(view.seats[1].bot, "expert");
  assert.equal(await ann.locator("section.manage").count(), 0);
});
