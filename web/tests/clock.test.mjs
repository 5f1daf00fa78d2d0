import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, host, launch, shot } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** Minutes in "23 h 58 min left" / "2 d 3 h left" / "5 min left". */
function minutesIn(text) {
  const days = Number(/(\d+) d/.exec(text)?.[1] ?? 0);
  const hours = Number(/(\d+) h/.exec(text)?.[1] ?? 0);
  const minutes = Number(/(\d+) min/.exec(text)?.[1] ?? 0);
  return days * 1440 + hours * 60 + minutes;
}

test("a seat's clock counts down from the server's deadline, and is right again after the device sleeps", async () => {
  for (const viewport of [undefined, { width: 390, height: 844 }]) {
    const context = await browser.newContext(viewport ? { viewport } : {});
    const page = await context.newPage();
    // The page's own clock is fake, and an hour fast: the countdown must go by the server's.
    await page.clock.install({ time: Date.now() + 3600_000 });
    await page.goto(`${BASE}/play`);
    await page.getByLabel("Your name").fill("Kit");
    await page.getByRole("button", { name: "Join" }).click();
    await page.getByRole("heading", { name: "Kit’s games" }).waitFor();
    // The table follows its game's stream; the page sets its clock by that answer's `Date` too.
    const streamed = page.waitForResponse((response) => /\/v1\/games\/[^/]+\/stream/.test(response.url()));
    await host(page, { game: "british-birds", players: 2, seats: ["me", "bot:steady"], options: { Clock: "correspondence", "Days for each move": "1" } });
    const mine = page.locator(".seat.mine [data-deadline]");
    await mine.waitFor();
    await streamed;
    // From here the page's time moves only when the test moves it. The server's does not
    // move with it, and the page sets its clock by the `Date` of every answer it gets: one
    // answer after a fast-forward (the stream connecting late on a slow machine, a reconnect)
    // would put the page back on the server's real time and undo what the test moved. So, once
    // the stream has answered, nothing the page asks is answered, as for a phone asleep.
    await context.route("**/v1/**", () => {});
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    const before = await mine.textContent();
    // A day's clock, less the moments the test took: not an hour less for the fast device
    // (the server's Date is whole seconds, so the first second may still read a whole day).
    assert.match(before, /^(23 h 59 min|1 d 0 h) left$/);
    await page.clock.fastForward(60_000);
    await page.waitForFunction((text) => document.querySelector(".seat.mine [data-deadline]")?.textContent !== text, before);
    assert.equal(minutesIn(await mine.textContent()), minutesIn(before) - 1);
    // Asleep for five hours: on waking, the time left is five hours less.
    await page.clock.fastForward("05:00:00");
    await page.waitForFunction((minutes) => {
      const text = document.querySelector(".seat.mine [data-deadline]")?.textContent ?? "";
      const [, hours, mins] = /^(\d+) h (\d+) min left$/.exec(text) ?? [];
      return Number(hours) * 60 + Number(mins) === minutes;
    }, minutesIn(before) - 1 - 300);
    await shot(page, viewport ? "clock-phone" : "clock-desktop");
    await context.close();
  }
});

test("the correspondence clock offers only the days the server takes", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${BASE}/play`);
  await page.getByLabel("Your name").fill("Lou");
  await page.getByRole("button", { name: "Join" }).click();
  await page.getByRole("link", { name: "New game" }).first().click();
  await page.getByLabel("Clock", { exact: true }).selectOption("correspondence");
  const days = await page.getByLabel("Days for each move").locator("option").evaluateAll((options) => options.map((o) => o.value));
  assert.deepEqual(days, ["1", "2", "3", "5", "7", "10", "14"]);
  await context.close();
});
