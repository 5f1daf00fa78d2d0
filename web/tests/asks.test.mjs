import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, cardIdsIn, claim, join, launch, movedPast, openTable, seed, shot, version } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** A British Birds deal in which the first player may ask the second for a card she holds,
 * and she holds an Owl: found by dealing seeded games with seat tokens. */
async function birdsDealWithAnOwl() {
  for (let n = 1; n < 500; n++) {
    const created = await fetch(`${BASE}/v1/games`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ game: "british-birds", players: [{ name: "A" }, { name: "B" }], seed: seed(n) }),
    }).then((r) => r.json());
    const view = (seat) => fetch(`${BASE}/v1/games/${created.id}`, { headers: { authorization: `Bearer ${created.seats[seat].token}` } }).then((r) => r.json());
    const [first, second] = [await view(0), await view(1)];
    if (!first.to_act.includes(0)) continue;
    const hasOwl = second.you.hand.some((card) => card.startsWith("owl"));
    const ask = first.legal_actions.find((action) => action.type === "ask" && action.seat === 1 && second.you.hand.includes(action.card));
    if (hasOwl && ask) return { seed: seed(n), card: ask.card };
  }
  throw new Error("no seed gives the deal this test needs");
}

test("in British Birds, Bea answers Ann's ask with an Owl from her own browser, and both see it told", async () => {
  const { seed: chosen, card } = await birdsDealWithAnOwl();
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea");
  const hosted = await asPlayer(ann, "POST", "/v1/me/games", { game: "british-birds", seats: [{ kind: "me" }, { kind: "invitation" }], seed: chosen });
  await claim(bea, `${BASE}${hosted.seats[1].invitation.link}`);
  await openTable(ann, hosted.id, 1);
  const before = await version(ann);
  await ann.locator("[data-ask-seat='1']").click();
  await ann.getByRole("group", { name: "Cards to ask for" }).locator(`button.card[data-card='${card}']`).click();
  await movedPast(bea, before);
  await shot(bea, "british-birds-asked");
  await bea.getByText(/asks you for/).waitFor();
  await bea.getByRole("button", { name: "Play an Owl", exact: true }).click();
  await ann.getByText(/Bea played an Owl \(.+\) to keep/).first().waitFor();
  await bea.getByText(/You played an Owl \(.+\) to keep/).first().waitFor();
  await shot(ann, "british-birds-owl");
});

/** A History of England deal of three in which the first player may ask the second for a
 * Crown she holds: the two cards shown with the ask then go to her. */
async function englandDealWithACrownToGive() {
  for (let n = 1; n < 500; n++) {
    const created = await fetch(`${BASE}/v1/games`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ game: "history-of-england", players: [{ name: "A" }, { name: "B" }, { name: "C" }], seed: seed(n) }),
    }).then((r) => r.json());
    const view = (seat) => fetch(`${BASE}/v1/games/${created.id}`, { headers: { authorization: `Bearer ${created.seats[seat].token}` } }).then((r) => r.json());
    const [first, second] = [await view(0), await view(1)];
    const ask = first.legal_actions.find((action) => action.type === "ask" && action.seat === 1 && action.show && second.you.hand.includes(action.card));
    if (first.to_act.includes(0) && ask) return { seed: seed(n), ask };
  }
  throw new Error("no seed gives the deal this test needs");
}

test("in History of England, the two cards shown with a Crown ask are on the asked player's page and nobody else's", async () => {
  const ann = await join(browser, "Ann");
  const bea = await join(browser, "Bea");
  const cat = await join(browser, "Cat");
  const { seed: chosen, ask: crownAsk } = await englandDealWithACrownToGive();
  const hosted = await asPlayer(ann, "POST", "/v1/me/games", { game: "history-of-england", seats: [{ kind: "me" }, { kind: "invitation" }, { kind: "invitation" }], seed: chosen });
  await claim(bea, `${BASE}${hosted.seats[1].invitation.link}`);
  await claim(cat, `${BASE}${hosted.seats[2].invitation.link}`);
  await openTable(ann, hosted.id, 1);
  const spectator = await (await browser.newContext()).newPage();
  await openTable(spectator, hosted.id, 1);
  const before = await version(ann);
  await ann.locator("[data-ask-seat='1']").click();
  await ann.getByRole("group", { name: "Cards to ask for" }).locator(`button.card[data-card='${crownAsk.card}']`).click();
  const shown = crownAsk.show.from.slice(0, 2);
  for (const card of shown) await ann.getByRole("group", { name: "Cards to show" }).locator(`button.card[data-card='${card}']`).click();
  await ann.getByRole("button", { name: "Ask, showing 2 of 2" }).click();
  for (const page of [bea, cat, spectator]) await movedPast(page, before);
  await bea.getByText(/Ann showed you these to ask for/).waitFor();
  assert.deepEqual(await cardIdsIn(bea, shown), shown, "Bea sees the two cards");
  await shot(bea, "history-of-england-crown-shown");
  await shot(cat, "history-of-england-crown-other-seat");
  const mine = (await asPlayer(cat, "GET", `/v1/games/${hosted.id}`)).you.hand;
  const hidden = shown.filter((card) => !mine.includes(card));
  assert.deepEqual(await cardIdsIn(cat, hidden), [], "Cat's page holds none of the shown cards");
  assert.deepEqual(await cardIdsIn(spectator, shown), [], "a spectator's page holds none of them");
  await cat.getByText(/Ann asked Bea for Crown/).first().waitFor();
});
