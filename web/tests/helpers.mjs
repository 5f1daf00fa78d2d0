// Shared pieces of the browser tests: a headless Debian Chromium driven by playwright-core,
// players who join through the page, and moves made by clicking what the page offers.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";

export const BASE = process.env.PARLOUR_URL ?? "http://127.0.0.1:8080";
export const SHOTS = new URL("../test-results/", import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

/** Chromium as the machine has it (no browser download): flags keep it off the network.
 *
 * With PARLOUR_WEB_DIST set to a folder (web/dist), every page gets the bundle from that
 * folder instead of the one embedded in the binary: a change to web/src is tried after
 * `npm run build` without rebuilding the server. CI leaves it unset and tests the binary. */
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const dist = process.env.PARLOUR_WEB_DIST;
  if (dist) {
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (options) => {
      const context = await newContext(options);
      await context.route(/\/play\/(assets\/play\.(js|css)|sw\.js)$/, (route, request) => {
        const file = request.url().endsWith("/sw.js") ? "sw.js" : request.url().endsWith(".js") ? "play.js" : "play.css";
        return route.fulfill({ path: resolve(dist, file), contentType: file.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8" });
      });
      return context;
    };
  }
  return browser;
}

/** A person on their own device (a browser context of its own) who joins with a name. */
export async function join(browser, name, viewport) {
  return joinIn(await browser.newContext(viewport ? { viewport } : {}), name);
}

/** As `join`, on a device (browser context) the caller has prepared. */
export async function joinIn(context, name) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error));
  page.errors = errors;
  await page.goto(`${BASE}/play`);
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Join" }).click();
  await page.getByRole("heading", { name: `${name}’s games` }).waitFor();
  return page;
}

/** Hosts a game through the New game form; answers the invitation links it shows. */
export async function host(page, { game, players, seats = [], options = {}, match = null }) {
  await page.getByRole("link", { name: "New game" }).first().click();
  await page.getByLabel("Game", { exact: true }).selectOption(game);
  if (players) await page.getByLabel("Players").selectOption(String(players));
  for (const [index, kind] of seats.entries()) {
    if (kind) await page.getByLabel(`Seat ${index + 1}`, { exact: true }).selectOption(kind);
  }
  for (const [label, value] of Object.entries(options)) {
    await page.getByLabel(label).selectOption(value);
  }
  if (match !== null) {
    await page.getByLabel(/Play a match/).check();
    if (match) await page.getByLabel(/Points to play to|Matches in the series/).fill(String(match));
  }
  await page.getByRole("button", { name: "Create the game" }).click();
  await page.getByRole("heading", { name: "Invite your friends" }).waitFor();
  const links = await page.locator(".copy-text").evaluateAll((inputs) => inputs.map((input) => input.value));
  await page.getByRole("link", { name: "Go to the table" }).click();
  await page.locator(".table-body").waitFor();
  return { links, id: new URL(page.url()).pathname.split("/").pop() };
}

/** Opens an invitation link and takes the seat. */
export async function claim(page, link) {
  await page.goto(link);
  await page.getByRole("button", { name: /^Take seat/ }).click();
  await page.locator(".seats-list .seat.mine").waitFor();
}

export function version(page) {
  return page.locator(".table-body").getAttribute("data-version").then(Number);
}

/** Waits until the page shows a version past `before` and has no move of its own on the way:
 * a bot's move can move the page on while my move is still being sent, and the page that
 * answer leaves may offer quite different moves. */
export async function movedPast(page, before) {
  await page.waitForFunction(
    (v) => {
      const body = document.querySelector(".table-body");
      return Number(body?.getAttribute("data-version")) > v && !body?.hasAttribute("data-sending");
    },
    before,
    { timeout: 15000 },
  );
}

/** Whether the page offers a move now. */
export async function hasMove(page) {
  return (await page.locator("section.actions").count()) > 0 || (await page.locator(".hand button.card, .board button.card").count()) > 0;
}

/** Makes one move by clicking what the page offers: a card to pick up or lay, an ask
 * (a player, then a card, then any cards to show), a choice, or a plain button. */
export async function move(page) {
  const before = await version(page);
  const cards = page.locator(".hand button.card[title*='('], .board button.card");
  const choice = page.locator("section.actions button[data-action][disabled]");
  const askSeat = page.locator("[data-ask-seat]");
  const plain = page.locator("section.actions button[data-action]:not([disabled])");
  if ((await choice.count()) > 0) {
    const wanted = Number(/of (\d+)/.exec(await choice.first().textContent())?.[1] ?? 1);
    const pickable = page.locator(".hand button.card[aria-pressed='false'], .choice button[aria-pressed='false']");
    for (let i = 0; i < wanted; i++) await pickable.first().click();
    await page.locator("section.actions button[data-action]:not([disabled])").first().click();
  } else if ((await askSeat.count()) > 0) {
    await askSeat.first().click();
    await page.getByRole("group", { name: "Cards to ask for" }).locator("button.card").first().click();
    const show = page.getByRole("group", { name: "Cards to show" });
    if ((await show.count()) > 0) {
      const text = await page.getByRole("button", { name: /^Ask, showing/ }).textContent();
      const wanted = Number(/of (\d+)/.exec(text)?.[1] ?? 2);
      for (let i = 0; i < wanted; i++) await show.locator("button.card[aria-pressed='false']").first().click();
      await page.getByRole("button", { name: /^Ask, showing/ }).click();
    }
  } else if ((await plain.count()) > 0) {
    await plain.first().click();
  } else if ((await cards.count()) > 0) {
    await cards.first().click();
  } else {
    return false;
  }
  await movedPast(page, before);
  return true;
}

/** Plays until the game is over, each page moving when it is offered a move. */
export async function playToTheEnd(pages, limit = 2000, afterEachMove = async () => {}) {
  for (let moves = 0; moves < limit; moves++) {
    if ((await pages[0].locator(".table-body").getAttribute("data-status")) === "finished") {
      for (const page of pages) await storyReadsWell(page);
      return moves;
    }
    let moved = false;
    for (const page of pages) {
      await page.waitForTimeout(0);
      if (await hasMove(page)) {
        moved = (await move(page).catch(async (error) => {
          await shot(page, "failed-move");
          throw error;
        })) || moved;
        if (moved) await afterEachMove(moves);
        break;
      }
    }
    if (!moved) await pages[0].waitForTimeout(100);
  }
  for (const [index, page] of pages.entries()) await shot(page, `stuck-${index}`);
  throw new Error("the game did not end");
}

/** The story is good English for "you" and for counts: no "You asks", "You's turn", "1 cards"
 * or a card's own full stop doubled ("L.B.W.."), and nothing of the machinery showing through
 * (an "undefined", a "[object Object]", a "NaN", an action's snake_case name). */
export const BAD_ENGLISH = [
  /\bYou (asks|does|plays|answers|has|is|was|wins|takes|holds|goes|bats|bowls|draws|passes|lays)\b/,
  /\b(you|You) (is|has)\b/,
  /\b[Yy]ou['’]s\b/,
  /\byour['’]s\b/,
  /(^|[^.\d])\b1 (cards|points|runs|wickets|turns|sets|overs|balls)\b/,
  /\b([02-9]|\d\d+) (card|point|run|wicket|turn|set|over|ball)\b(?![-’'])/,
  /[^.]\.\.$/,
  /\.\. /,
  /\b(undefined|null|NaN)\b|\[object Object\]/,
  /\b[a-z]+_[a-z_]+\b/,
  /\s[.,;:]/,
  /\s{2,}/,
];

export async function storyReadsWell(page) {
  const lines = await page.locator(".story li").allTextContents();
  const wrong = lines.filter((line) => BAD_ENGLISH.some((pattern) => pattern.test(line)));
  if (wrong.length > 0) throw new Error(`the story reads badly: ${JSON.stringify(wrong.slice(0, 10))}`);
  return lines.length;
}

/** The same checks over every line a part of the page shows (the board, the results), as
 * a reader sees it. */
export async function pageReadsWell(page, selector = ".table-body") {
  const lines = (await page.locator(selector).innerText()).split("\n").map((line) => line.trim()).filter(Boolean);
  const wrong = lines.filter((line) => BAD_ENGLISH.some((pattern) => pattern.test(line)));
  if (wrong.length > 0) throw new Error(`the page reads badly: ${JSON.stringify(wrong.slice(0, 10))}`);
}

export async function shot(page, name) {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

/** Calls the API as the person signed in on `page` (the token the page keeps). */
export async function asPlayer(page, method, path, body) {
  const token = await page.evaluate(() => localStorage.getItem("parlour.token"));
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A seed as the API takes it. */
export function seed(n) {
  return n.toString(16).padStart(64, "0");
}

/** Every card id the page's DOM holds, anywhere in its markup. */
export async function cardIdsIn(page, ids) {
  const html = await page.content();
  return ids.filter((id) => html.includes(id));
}

/** Opens a game's table on `page` and waits for it to show `version` or later. */
export async function openTable(page, id, version = 0) {
  await page.goto(`${BASE}/play/games/${id}`);
  await page.waitForFunction((v) => Number(document.querySelector(".table-body")?.getAttribute("data-version")) >= v, version);
}

/** A legal action made concrete: the first cards of any choice it offers. */
export function concrete(legal) {
  return Object.fromEntries(Object.entries(legal).map(([key, value]) => [key, value && typeof value === "object" && "choose" in value ? value.from.slice(0, value.choose) : value]));
}
