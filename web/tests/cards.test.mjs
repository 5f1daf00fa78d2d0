import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, launch, shot } from "./helpers.mjs";
import { GAMES, midGame, seatPage } from "./tables.mjs";

const PHONE = { width: 390, height: 844 };

/** The pictures each game's cards may carry (their `[data-art]`): a game drawn with another
 * game's art fails. */
const ART = {
  girl: ["heroine", "joker"],
  car: ["car", "joker"],
  "british-birds": ["bird", "owl"],
  "history-of-england": ["crown", "feature"],
  googly: ["batting", "appeal", "out", "caught", "not-out", "leg-bye"],
};

let browser;
const tables = {};
before(async () => {
  browser = await launch();
  for (const [game, plan] of Object.entries(GAMES)) tables[game] = await midGame(game, plan);
});
after(async () => browser?.close());

/** The table of `game` as seat 0 sees it on a phone. */
async function phoneTable(game, options) {
  const { id, tokens } = tables[game];
  return seatPage(browser, id, tokens[0], PHONE, options);
}

/** Every card text on the page whose size (font size times any scaling of its card) is under
 * 12 px, or whose lines reach outside its card, or that is cut off with an ellipsis. */
function badCardText(page) {
  return page.evaluate(() => {
    const bad = [];
    const faces = [...document.querySelectorAll(".card")];
    for (const card of faces) {
      const box = card.getBoundingClientRect();
      // A transform that scales the card scales its text: its drawn width over its laid-out one.
      const width = parseFloat(getComputedStyle(card).width);
      const scale = width > 0 ? box.width / width : 1;
      for (const text of card.querySelectorAll(".card-text")) {
        if (!text.textContent.trim()) continue;
        const style = getComputedStyle(text);
        const size = parseFloat(style.fontSize) * scale;
        const what = `${card.getAttribute("aria-label")}: "${text.textContent}"`;
        // (A hundredth of a pixel lost to sub-pixel layout is not a smaller font.)
        if (size < 11.95) bad.push(`${what} is ${size.toFixed(1)}px`);
        if (style.textOverflow === "ellipsis" || text.scrollWidth > text.clientWidth + 1) bad.push(`${what} is cut off`);
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const line of range.getClientRects()) {
          if (line.left < box.left - 0.5 || line.right > box.right + 0.5 || line.top < box.top - 0.5 || line.bottom > box.bottom + 0.5) {
            bad.push(`${what} reaches outside its card`);
            break;
          }
        }
      }
    }
    return { faces: document.querySelectorAll(".card.face").length, bad };
  });
}

test("on a phone, every card's text in each of the five games is at least 12px and stays inside its card", async () => {
  for (const game of Object.keys(GAMES)) {
    const page = await phoneTable(game);
    const { faces, bad } = await badCardText(page);
    await shot(page, `cards-${game}-phone`);
    assert.ok(faces >= 3, `${game}: ${faces} cards face up`);
    assert.deepEqual(bad, [], `${game}: card text too small or cut off`);
    await page.context().close();
  }
});

test("every card face in each of the five games carries its own game's drawing", async () => {
  for (const [game, kinds] of Object.entries(ART)) {
    const page = await phoneTable(game);
    const faces = await page.locator(".card.face").evaluateAll((cards) =>
      cards.map((card) => ({ label: card.getAttribute("aria-label"), art: [...card.querySelectorAll("[data-art]")].map((art) => ({ kind: art.getAttribute("data-art"), shapes: art.querySelectorAll("path").length })) })),
    );
    assert.ok(faces.length >= 3, `${game}: ${faces.length} cards face up`);
    for (const face of faces) {
      assert.ok(face.art.length > 0, `${game}: ${face.label} has a drawing`);
      for (const art of face.art) {
        assert.ok(kinds.includes(art.kind), `${game}: ${face.label} is drawn as ${art.kind}`);
        assert.ok(art.shapes > 0, `${game}: ${face.label}'s drawing has paths`);
      }
    }
    await page.context().close();
  }
});

test("the CAR Game's cards speak of car classes and the BLUEBIRD, never of a Heroine", async () => {
  const page = await phoneTable("car");
  const words = await page.locator(".card").evaluateAll((cards) => cards.map((card) => `${card.textContent} | ${card.getAttribute("aria-label") ?? ""} | ${card.getAttribute("title") ?? ""}`));
  assert.ok(words.length >= 3, `${words.length} cards`);
  assert.deepEqual(words.filter((text) => /heroine/i.test(text)), []);
  assert.ok(words.some((text) => /CAR-CLASS|Car-class|TRIO/.test(text)), "the cards use the CAR Game's own words");
  const girl = await phoneTable("girl");
  assert.ok((await girl.locator(".card.kind-heroine").count()) + (await girl.locator(".card.kind-trio").count()) > 0);
  assert.match((await girl.locator(".card.face").allTextContents()).join(" "), /Heroine|TRIO|GIRL/, "GIRL keeps its own words");
  await page.context().close();
  await girl.context().close();
});

test("on a phone the hand is one row that scrolls sideways, never wider than the screen, and the move panel is in view", async () => {
  for (const game of ["history-of-england", "british-birds", "girl"]) {
    const page = await phoneTable(game);
    const hand = page.locator(".hand").first();
    await hand.waitFor();
    // Laid out once the page has settled (a fresh page may still be placing its cards).
    await page.waitForFunction(() => document.readyState === "complete");
    await page.waitForTimeout(200);
    const row = await hand.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const tops = new Set([...element.querySelectorAll(":scope > .card")].map((card) => Math.round(card.offsetTop)));
      return { left: box.left, right: box.right, scrolls: element.scrollWidth > element.clientWidth, cards: element.children.length, lines: tops.size, page: document.documentElement.scrollWidth };
    });
    assert.ok(row.left >= 0 && row.right <= PHONE.width, `${game}: the hand spans ${row.left}..${row.right}`);
    assert.equal(row.lines, 1, `${game}: the hand is one row`);
    if (row.cards > 4) assert.ok(row.scrolls, `${game}: a hand of ${row.cards} scrolls sideways`);
    assert.ok(row.page <= PHONE.width, `${game}: the page is ${row.page}px wide`);
    const panel = await page.locator("section.actions").boundingBox();
    assert.ok(panel, `${game}: it is my move`);
    assert.ok(panel.y >= 0 && panel.y + Math.min(panel.height, 60) <= PHONE.height, `${game}: the move panel at ${panel.y} is in view`);
    await page.context().close();
  }
});

test("GOOGLY's scorecard is tables that scroll sideways with the names and headings in place, the printed text kept", async () => {
  const page = await phoneTable("googly");
  const region = page.getByRole("region", { name: /batting/ }).first();
  await region.waitFor();
  // Found afresh inside one evaluation: the table may redraw between a locator finding the
  // element and a later step using it (as the story's log finishes loading), and a detached
  // element has no computed style.
  const kept = await page.evaluate(() => {
    const element = [...document.querySelectorAll('[role="region"]')].find((region) => /batting/.test(region.getAttribute("aria-label") ?? ""));
    const first = element.querySelector("tbody th");
    const head = element.querySelector("thead th");
    const before = first.getBoundingClientRect().left;
    element.scrollLeft = 80;
    element.scrollTop = 40;
    return { scrolls: element.scrollWidth > element.clientWidth, moved: Math.abs(first.getBoundingClientRect().left - before), sticky: getComputedStyle(head).position, wide: element.getBoundingClientRect().right <= innerWidth };
  });
  assert.ok(kept.wide, "the scorecard fits the screen");
  assert.equal(kept.sticky, "sticky", "the heading row stays in view");
  assert.ok(kept.moved < 1, `the names' column stays put (moved ${kept.moved}px)`);
  assert.match(await page.locator(".scorecard").textContent(), /GOOGLY: /, "the printed score-sheet is there");
  await page.context().close();
});

test("no card moves for a reader who asks for reduced motion, and cards do move for others", async () => {
  const calm = await phoneTable("girl", { reducedMotion: "reduce" });
  const lively = await phoneTable("girl", { reducedMotion: "no-preference" });
  // One evaluation finds the card and reads its style, so a redraw between cannot detach it.
  const motion = (page) => page.evaluate(() => { const card = document.querySelector(".card"); card.classList.add("fresh"); const style = getComputedStyle(card); return `${style.animationName} ${style.transitionDuration}`; });
  assert.equal(await motion(calm), "none 0s");
  assert.notEqual(await motion(lively), "none 0s");
  await calm.context().close();
  await lively.context().close();
});

test("a card laid from the hand slides to the lay and the other seats’ lays fade in; nothing moves under reduced motion", async () => {
  for (const reducedMotion of ["no-preference", "reduce"]) {
    const { id, tokens } = await midGame("girl", GAMES.girl);
    const page = await seatPage(browser, id, tokens[0], PHONE, { reducedMotion });
    // Watch every animation of a card from now on: the lay's slide lasts a quarter second.
    await page.evaluate(() => {
      window.moved = [];
      const watch = () => {
        for (const animation of document.getAnimations()) {
          // A slide is a script's animation; a hover's lift (a CSS transition) is not.
          if (animation instanceof CSSTransition) continue;
          const card = animation.effect?.target?.closest?.("[data-card], .card.back");
          const row = card?.parentElement?.closest(".card-row")?.getAttribute("aria-label");
          const how = animation instanceof CSSAnimation ? "faded into" : "slid to";
          if (card) window.moved.push(`${card.dataset.card ?? "a back"} ${how} ${row}`);
        }
        requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    });
    const lay = page.locator("section.actions button[data-action='lay']");
    const wanted = Number(/of (\d+)/.exec(await lay.textContent())?.[1] ?? 3);
    for (let i = 0; i < wanted; i++) await page.locator(".hand button.card[aria-pressed='false']").first().click();
    const picked = await page.locator(".hand button.card[aria-pressed='true']").evaluateAll((cards) => cards.map((card) => card.dataset.card));
    await lay.click();
    await page.getByRole("group", { name: "Your lay" }).waitFor();
    // The other seats lay (through the API): their backs, or the trick turned face up, come in.
    const before = Number(await page.locator(".table-body").getAttribute("data-version"));
    for (const token of tokens.slice(1)) {
      const view = await fetch(`${BASE}/v1/games/${id}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
      const action = view.legal_actions.find((legal) => legal.type === "lay");
      if (!action) continue;
      const response = await fetch(`${BASE}/v1/games/${id}/actions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "if-match": `"${view.version}"` },
        body: JSON.stringify({ type: "lay", cards: action.cards.from.slice(0, action.cards.choose) }),
      });
      assert.ok(response.ok, await response.text());
    }
    await page.waitForFunction((v) => Number(document.querySelector(".table-body")?.getAttribute("data-version")) > v, before);
    await page.waitForTimeout(400);
    const moved = await page.evaluate(() => window.moved);
    if (reducedMotion === "reduce") {
      assert.deepEqual(moved, [], "nothing moves under reduced motion");
    } else {
      const told = [...new Set(moved)].join(", ");
      for (const card of picked) assert.ok(moved.includes(`${card} slid to Your lay`), `${card} slid to the lay (${told})`);
      assert.ok(moved.some((what) => what.includes("faded into")), `the other lays came in (${told})`);
    }
    await page.context().close();
  }
});
