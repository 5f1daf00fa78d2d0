// Issue 37: the whole story in good English, the ending explained, help at the table, and
// every hand in the replay once a game is over.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, concrete, hasMove, host, join, launch, move, openTable, pageReadsWell, seed, shot, storyReadsWell } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** Creates a game with seat tokens (no accounts): the API's plain way in. */
async function create(body) {
  const response = await fetch(`${BASE}/v1/games`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const created = await response.json();
  if (!response.ok) throw new Error(`create: ${response.status} ${JSON.stringify(created)}`);
  return created;
}

async function seatView(id, token) {
  return fetch(`${BASE}/v1/games/${id}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).then((r) => r.json());
}

/** Plays a game to its end through the API, each seat making its first legal move (GOOGLY:
 * standing preferences first, so the match plays itself in a few moves). */
async function playByApi(id, tokens, { prefer = null, limit = 5000 } = {}) {
  const preferred = new Set();
  for (let moves = 0; moves < limit; moves++) {
    let moved = false;
    for (const token of tokens) {
      const view = await seatView(id, token);
      if (view.status === "finished") return view;
      if (!view.to_act.includes(view.you.seat) || view.legal_actions.length === 0) continue;
      const move = prefer && !preferred.has(token) ? prefer : concrete(view.legal_actions[0]);
      if (prefer) preferred.add(token);
      const response = await fetch(`${BASE}/v1/games/${id}/actions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "if-match": `"${view.version}"` },
        body: JSON.stringify(move),
      });
      if (response.status === 412) continue;
      if (!response.ok) {
        throw new Error(`move ${JSON.stringify(move)}: ${response.status} ${await response.text()}`);
      }
      moved = true;
      break;
    }
    if (!moved) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the game did not end");
}

/** Shows the whole story: "Earlier" until there is nothing earlier. Returns its lines,
 * newest first, as the page lists them. */
async function wholeStory(page) {
  const earlier = page.locator(".story-panel button.earlier");
  for (let pages = 0; pages < 200 && (await earlier.isVisible()); pages++) await earlier.click();
  await page.locator('.story[data-complete="true"]').waitFor();
  return page.locator(".story li").allTextContents();
}

test("the story of a long game of GIRL pages back to the deal with Earlier, it and the whole table read well, and the results panel says who won on cards", async () => {
  const created = await create({ game: "girl", players: ["Ann", "Bea", "Cat", "Dan", "Eve"].map((name) => ({ name })), seed: seed(37) });
  const tokens = created.seats.map((seat) => seat.token);
  const final = await playByApi(created.id, tokens);
  const spectator = await (await browser.newContext()).newPage();
  await openTable(spectator, created.id, final.version);
  await spectator.locator(".story li").first().waitFor();
  assert.equal(await spectator.locator(".story li").count(), 60, "a long story shows its last 60 lines at first");
  assert.ok(await spectator.locator(".story-panel button.earlier").isVisible(), "with a way to earlier lines");
  const lines = await wholeStory(spectator);
  assert.ok(lines.length > 60, `the whole story has ${lines.length} lines, more than the first page`);
  const events = [];
  for (let after = 0; ; ) {
    const page = await (await fetch(`${BASE}/v1/games/${created.id}/events?after=${after}&limit=1000`)).json();
    events.push(...page.events);
    if (page.next_after === null || page.next_after === undefined || page.events.length === 0) break;
    after = page.next_after;
  }
  assert.equal(events[0].type, "deal", "the log begins with the deal");
  assert.match(lines[lines.length - 1], /dealt\.$/, "the story's first entry is the deal");
  assert.match(lines[0], /^Game over\. Scores:/, "and its last the end");
  await storyReadsWell(spectator);
  await pageReadsWell(spectator);

  const result = final.result;
  const winners = result.winners.map((seat) => final.seats[seat].name);
  const why = await spectator.locator(".results .results-why").textContent();
  for (const name of winners) assert.ok(why.includes(name), `the results panel names ${name}: ${why}`);
  assert.match(why, /won on cards|share the win on cards/, `the results panel says the game was won on cards: ${why}`);
  for (const seat of final.seats) {
    const row = spectator.locator(`.results-table tr[data-seat="${seat.seat}"]`);
    assert.match(await row.textContent(), new RegExp(`${seat.name}.*${result.scores[seat.seat]}$`), `${seat.name}'s score is in the table`);
  }
  await shot(spectator, "story-girl-whole");
});

test("a resignation ends the game with a results panel naming who resigned and who won, on the resigner's page and a spectator's", async () => {
  const ann = await join(browser, "Ann");
  const { id } = await host(ann, { game: "british-birds", players: 2, seats: ["me", "bot:steady"] });
  await ann.locator(".seats-list .seat.mine").waitFor();
  ann.on("dialog", (dialog) => dialog.accept());
  await ann.getByRole("button", { name: "Resign" }).click();
  await ann.locator('.table-body[data-status="finished"]').waitFor();
  const view = await asPlayer(ann, "GET", `/v1/games/${id}`);
  const winner = view.seats[view.result.concession.ranking[0][0]].name;
  const why = ann.locator(".results .results-why");
  await why.waitFor();
  assert.equal(await why.textContent(), `You resigned, so ${winner} won.`);
  const spectator = await (await browser.newContext()).newPage();
  await openTable(spectator, id, view.version);
  await spectator.locator(".results .results-why").waitFor();
  assert.equal(await spectator.locator(".results .results-why").textContent(), `Ann resigned, so ${winner} won.`);
  assert.match(await spectator.locator(`.results-table tr[data-seat="0"]`).textContent(), /Ann — resigned/);
  await pageReadsWell(spectator);
  await ann.locator(".story li", { hasText: `You resigned, so ${winner} won.` }).waitFor();
  await spectator.locator(".story li", { hasText: `Ann resigned, so ${winner} won.` }).waitFor();
  await storyReadsWell(spectator);
  await shot(spectator, "story-resigned");
  assert.deepEqual(ann.errors, []);
});

test("a game lost on time says who ran out of time and who won, in the results panel and the story", async () => {
  const created = await create({ game: "british-birds", players: [{ name: "Ann" }, { name: "Bea" }] });
  const resigned = await fetch(`${BASE}/v1/games/${created.id}/resign`, { method: "POST", headers: { authorization: `Bearer ${created.seats[1].token}` } });
  assert.ok(resigned.ok, `resign: ${resigned.status}`);
  const real = await seatView(created.id);
  // No clock runs out in under an hour, so the page is shown the same finished game as the
  // server gives one lost on time (docs/clocks.md, "forfeit"): its result a forfeit, with the
  // same concession, and its last entry `table.timed_out` instead of `table.resigned`.
  const forfeit = { ...real, result: { ...real.result, ended_by: "forfeit" } };
  const spectator = await (await browser.newContext()).newPage();
  await spectator.route(new RegExp(`/v1/games/${created.id}$`), (route) => route.fulfill({ json: forfeit }));
  await spectator.route(new RegExp(`/v1/games/${created.id}/stream`), (route) =>
    route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: `event: view\ndata: ${JSON.stringify(forfeit)}\n\n` }),
  );
  await spectator.route(new RegExp(`/v1/games/${created.id}/events`), async (route) => {
    const response = await route.fetch();
    const page = await response.json();
    page.events = page.events.map((event) => (event.type === "table.resigned" ? { ...event, type: "table.timed_out", data: { seat: event.data.seat, deadline: 0 } } : event));
    await route.fulfill({ response, json: page });
  });
  await openTable(spectator, created.id, real.version);
  const why = spectator.locator(".results .results-why");
  await why.filter({ hasText: "Bea ran out of time, so Ann won." }).waitFor();
  assert.match(await spectator.locator(`.results-table tr[data-seat="1"]`).textContent(), /Bea — out of time/);
  await spectator.locator(".story li", { hasText: "Bea ran out of time, so Ann won." }).waitFor();
  await storyReadsWell(spectator);
});

test("a GOOGLY match tells each ball with its bowler, its batter named after the person playing him, and the score, and names the sides after their captains", async () => {
  const created = await create({ game: "googly", players: [{ name: "Ann" }, { name: "Bea" }], options: { variant: "two_player" }, seed: seed(11) });
  const tokens = created.seats.map((seat) => seat.token);
  const prefer = { type: "prefer", auto_bowl: true, accept_defaults: true, keep_playing_on: true };
  const final = await playByApi(created.id, tokens, { prefer });
  const spectator = await (await browser.newContext()).newPage();
  await openTable(spectator, created.id, final.version);
  await spectator.locator(".story li").first().waitFor();
  const lines = await wholeStory(spectator);
  const balls = lines.filter((line) => / to .+: /.test(line));
  assert.ok(balls.length > 50, `${balls.length} balls told`);
  // "Bea (1) to Ann (3): 4 Runs. Ann’s XI 56 for 2."
  const runs = balls.filter((line) => /^(Ann|Bea) \(\d+\) to (Ann|Bea) \(\d+\): \d Runs?\. (Ann|Bea)’s XI \d+ for \d+\.$/.test(line));
  assert.ok(runs.length > 30, `balls name bowler, batter and score: ${JSON.stringify(balls.slice(0, 5))}`);
  for (const line of runs) {
    const [, bowler, batter, side] = /^(\w+) \(\d+\) to (\w+) \(\d+\): .* (\w+)’s XI/.exec(line);
    assert.notEqual(bowler, batter, `the bowler is of the other side: ${line}`);
    assert.equal(side, batter, `the score is the batting side's: ${line}`);
  }
  assert.ok(lines.some((line) => /is out for \d+: (Bowled|Caught|Stumped|L\.B\.W\.|Run Out) (Ann|Bea)’s XI \d+ for \d+\.$/.test(line)), "a wicket names the batter, his score and the dismissal");
  assert.ok(lines.some((line) => /^(Ann|Bea)’s XI won the toss/.test(line)), "the toss names the side after its captain");
  assert.ok(lines.some((line) => /^(Ann|Bea) \(\d+\) and \1 \(\d+\) open the bowling\.$/.test(line)), "the opening bowlers are named after the person bowling them");
  assert.deepEqual(lines.filter((line) => /Gentlemen|Players/.test(line)), [], "no line names a side or a player by the sheet's placeholder");
  await storyReadsWell(spectator);
  const board = await spectator.locator(".board .innings").textContent();
  assert.match(board, /Ann’s XI/);
  assert.match(board, /Bea’s XI/);
  await pageReadsWell(spectator, ".results");
  const why = await spectator.locator(".results .results-why").textContent();
  assert.match(why, /^((Ann|Bea)’s XI won by (an innings and )?\d+ (runs?|wickets?), so (Ann|Bea) won|The match was (drawn|tied))/, why);
  await shot(spectator, "story-googly");
});

test("every game's table has a How to play panel that opens to the aim, a turn and the scoring", async () => {
  const games = { girl: ["GIRL", 2], car: ["The CAR Game", 2], "british-birds": ["British Birds", 2], "history-of-england": ["History of England No. 2", 3], googly: ["GOOGLY", 2] };
  const spectator = await (await browser.newContext()).newPage();
  const texts = new Set();
  for (const [game, [name, players]] of Object.entries(games)) {
    const created = await create({ game, players: Array.from({ length: players }, (_, i) => ({ name: `P${i + 1}` })) });
    await openTable(spectator, created.id, 0);
    const panel = spectator.locator("details.how-to-play");
    await panel.locator("summary", { hasText: `How to play ${name}` }).click();
    assert.equal(await panel.getAttribute("open"), "", `${name}'s panel opens`);
    const text = await panel.textContent();
    assert.match(text, /The aim: .+A turn.+Scoring: /s, `${name}'s panel has the aim, a turn and the scoring`);
    texts.add(text.replace(/How to play .*?The aim/, ""));
  }
  assert.equal(texts.size, 5, "each game, CAR included, has words of its own");
});

/** A British Birds deal in which the first player may ask the second for a card. */
async function birdsDealWithAnAsk() {
  for (let n = 1; n < 500; n++) {
    const created = await create({ game: "british-birds", players: [{ name: "A" }, { name: "B" }], seed: seed(n) });
    const first = await seatView(created.id, created.seats[0].token);
    if (first.to_act.includes(0) && first.legal_actions.some((action) => action.type === "ask" && action.seat === 1)) return seed(n);
  }
  throw new Error("no seed gives the deal this test needs");
}

test("selecting a move shows a line saying what it will do, and British Birds' Owl orders stand apart from the turn's moves", async () => {
  const chosen = await birdsDealWithAnAsk();
  const ann = await join(browser, "Ann");
  const hosted = await asPlayer(ann, "POST", "/v1/me/games", { game: "british-birds", seats: [{ kind: "me" }, { kind: "bot", level: "steady" }], seed: chosen });
  await openTable(ann, hosted.id, 1);
  const view = await asPlayer(ann, "GET", `/v1/games/${hosted.id}`);
  const bot = view.seats[1].name;
  const hint = ann.locator(".move-hint");
  assert.equal(await hint.textContent(), "", "no hint before a move is selected");
  await ann.locator("[data-ask-seat='1']").click();
  assert.equal(await hint.textContent(), `Asks ${bot} for a card: pick which.`);
  const ask = view.legal_actions.find((action) => action.type === "ask" && action.seat === 1);
  const card = ann.getByRole("group", { name: "Cards to ask for" }).locator(`button.card[data-card='${ask.card}']`);
  await card.hover();
  const catalog = await (await fetch(`${BASE}/v1/catalog/british-birds`)).json();
  const name = catalog.cards.find((c) => c.id === ask.card).name;
  await ann.waitForFunction(() => /^Asks /.test(document.querySelector(".move-hint")?.textContent ?? "") && / for (?!a card: pick which)/.test(document.querySelector(".move-hint").textContent));
  assert.match(await hint.textContent(), new RegExp(`^Asks ${bot} for .*${name.replace(/[()]/g, ".")}.*\\.$`));
  const pickUp = view.legal_actions.find((action) => action.type === "pick_up");
  if (pickUp) {
    await ann.locator(`.board button.card[data-card='${pickUp.card}']`).hover();
    await ann.waitForFunction(() => /^Picks up .* from the row/.test(document.querySelector(".move-hint")?.textContent ?? ""));
  }
  const standing = ann.locator("fieldset.standing-orders");
  await standing.locator("legend", { hasText: "Standing orders for your Owls" }).waitFor();
  assert.equal(await ann.locator("section.actions fieldset.standing-orders, section.actions [data-action='set_owl_preference']").count(), 0, "no Owl order among the turn's moves");
  await standing.locator("[data-action='set_owl_preference']").first().hover();
  await ann.waitForFunction(() => /^From now on, asked for a card you hold/.test(document.querySelector(".move-hint")?.textContent ?? ""));
  await shot(ann, "story-hint");
  assert.deepEqual(ann.errors, []);
});

test("picking cards for a lay in GIRL shows what the lay will do: the cards, face down, and the HEROINE played for", async () => {
  const ann = await join(browser, "Ann");
  await host(ann, { game: "girl", players: 2, seats: ["me", "bot:random"] });
  const lay = ann.locator("section.actions button[data-action='lay'][disabled]");
  for (let i = 0; i < 300 && (await lay.count()) === 0; i++) {
    if (await hasMove(ann)) await move(ann);
    else await ann.waitForTimeout(100);
  }
  assert.ok((await lay.count()) > 0, "a trick came to be laid");
  const card = ann.locator(".hand button.card[aria-pressed='false']").first();
  const id = await card.getAttribute("data-card");
  const catalog = await (await fetch(`${BASE}/v1/catalog/girl`)).json();
  const name = catalog.cards.find((c) => c.id === id).name;
  await card.click();
  await ann.waitForFunction(() => /^Lays .+ face down to be played for .+\.$/.test(document.querySelector(".move-hint")?.textContent ?? ""));
  assert.ok((await ann.locator(".move-hint").textContent()).includes(name), `the hint names ${name}`);
  await shot(ann, "story-hint-lay");
  assert.deepEqual(ann.errors, []);
});

test("once a game is over, a spectator's replay shows every player's hand as the game left it", async (t) => {
  const created = await create({ game: "girl", players: [{ name: "Ann" }, { name: "Bea" }, { name: "Cat" }], seed: seed(5) });
  const final = await playByApi(created.id, created.seats.map((seat) => seat.token));
  const state = await (await fetch(`${BASE}/v1/games/${created.id}/state?at=${final.version}`)).json();
  if (!Array.isArray(state.revealed)) return t.skip("this server does not reveal the hands yet (no `revealed` in the view)");
  const spectator = await (await browser.newContext()).newPage();
  await spectator.goto(`${BASE}/play/games/${created.id}/replay`);
  await spectator.locator(`.board [data-version="${final.version}"]`).waitFor();
  // At the end, and half way through (where every hand still holds cards), the page shows
  // exactly the cards the server reveals for each seat.
  let seen = 0;
  for (const at of [final.version, Math.floor(final.version / 2)]) {
    const state = await (await fetch(`${BASE}/v1/games/${created.id}/state?at=${at}`)).json();
    await spectator.getByLabel("Point in the game").fill(String(at));
    await spectator.locator(`.board [data-version="${at}"]`).waitFor();
    const seats = spectator.locator(".revealed .revealed-seat");
    assert.equal(await seats.count(), 3, "a hand for each seat");
    for (const [seat, part] of state.revealed.entries()) {
      const shown = await seats.nth(seat).locator("[data-card]").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-card")));
      assert.deepEqual(shown.sort(), [...part.hand, ...part.laid].sort(), `${final.seats[seat].name}'s cards after event ${at}`);
      seen += shown.length;
    }
  }
  assert.ok(seen > 0, "the hands shown hold cards");
  await shot(spectator, "story-replay-hands");
});
