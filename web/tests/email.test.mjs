// Email addresses and notice preferences on the account page, against a server whose mail goes
// to tests/smtp-sink.mjs (web/check.sh starts it and gives its address in SMTP_SINK): an address
// is added, confirmed by following the link mailed to it, told or not, and removed; the
// notices chosen per channel, quiet hours, the digest and the time zone are saved and kept.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, asPlayer, join, joinIn, launch, shot } from "./helpers.mjs";

const SINK = process.env.SMTP_SINK;
const PHONE = { width: 390, height: 844 };

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** The mails the sink has been given for `to`, oldest first. */
async function mailsTo(to) {
  const mails = await (await fetch(`${SINK}/mails`)).json();
  return mails.filter((mail) => mail.to.includes(to));
}

/** Waits (polling the sink) for a mail to `to`, after the first `seen`, holding a link to
 * `path` (with its `?token=`, or the `pattern` given), and gives the link. */
async function linkMailed(to, seen, path, timeout = 15000, pattern = tokenLink(path)) {
  const until = Date.now() + timeout;
  for (;;) {
    for (const mail of (await mailsTo(to)).slice(seen)) {
      const link = linkIn(mail.raw, pattern);
      if (link) return link;
    }
    if (Date.now() > until) throw new Error(`no mail to ${to} with a link to ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A link to `path` with a `?token=`. */
function tokenLink(path) {
  const escaped = path.replace(/[.?]/g, "\\$&");
  return new RegExp(`https?://[^\\s"'<>]+${escaped}\\?token=[^\\s"'<>&]+`);
}

/** The first match of `pattern` in any part of a MIME message, each part decoded as its
 * Content-Transfer-Encoding says (lettre picks quoted-printable, base64 or none). */
function linkIn(raw, pattern) {
  for (const part of raw.split(/\r?\n--[^\r\n]+\r?\n/)) {
    const split = part.search(/\r?\n\r?\n/);
    const headers = split >= 0 ? part.slice(0, split) : "";
    const body = split >= 0 ? part.slice(split).trim() : part;
    const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(headers)?.[1]?.toLowerCase();
    const text = encoding === "base64" ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8") : encoding === "quoted-printable" ? unquote(body) : body;
    const found = pattern.exec(text.replace(/&amp;/g, "&"));
    if (found) return found[0];
  }
  return null;
}

/** Quoted-printable undone: soft line breaks joined, "=XX" bytes put back. */
function unquote(text) {
  const bytes = Buffer.from(text.replace(/=\r?\n/g, ""), "latin1");
  const out = [];
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes[i] === 0x3d ? bytes.subarray(i + 1, i + 3).toString("latin1") : "";
    if (/^[0-9A-F]{2}$/i.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      out.push(bytes[i]);
    }
  }
  return Buffer.from(out).toString("utf8");
}

/** Nothing on the page is wider than the window (a phone scrolls only down). */
async function fitsWidth(page) {
  const [scroll, width] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(scroll <= width, `the page is ${scroll}px wide in a ${width}px window`);
}

test("an address added on the account page is confirmed through the link mailed to it, told or not, and removed", { skip: !SINK && "SMTP_SINK is not set: web/check.sh starts the sink" }, async () => {
  const ann = await join(browser, "Ann");
  await ann.getByRole("link", { name: "Account" }).click();
  // The sink may hold mails of an earlier run against another server.
  const seen = (await mailsTo("ann@example.org")).length;
  const section = ann.locator("section", { has: ann.getByRole("heading", { name: "Email", exact: true }) });
  await section.getByLabel("Email address").fill("ann@example.org");
  await section.getByRole("button", { name: "Add address" }).click();
  await section.getByText("We sent a link to ann@example.org: open it to confirm.").waitFor();
  const row = section.locator('li[data-address="ann@example.org"]');
  await row.getByText("waiting for you to confirm").waitFor();

  // The same address again is refused, in the page's error box.
  await section.getByLabel("Email address").fill("ann@example.org");
  await section.getByRole("button", { name: "Add address" }).click();
  await section.getByRole("alert").waitFor();

  // The link in the mail opens a page whose button confirms the address.
  const link = await linkMailed("ann@example.org", seen, "/v1/email/verify");
  assert.ok(link.startsWith(`${BASE}/v1/email/verify?token=`), link);
  await ann.goto(link);
  await ann.getByRole("button", { name: "Confirm" }).click();
  await ann.getByRole("heading", { name: "Address confirmed" }).waitFor();

  await ann.goto(`${BASE}/play/account`);
  await row.locator(".badge", { hasText: /^confirmed$/ }).waitFor();
  await row.getByText("notices on").waitFor();
  await shot(ann, "account-email");

  // Notices stopped and started again.
  await row.getByRole("button", { name: "Stop notices" }).click();
  await row.getByText("notices off").waitFor();
  let [kept] = (await asPlayer(ann, "GET", "/v1/me/email-addresses")).addresses;
  assert.equal(kept.notices, false);
  await row.getByRole("button", { name: "Start notices" }).click();
  await row.getByText("notices on").waitFor();
  [kept] = (await asPlayer(ann, "GET", "/v1/me/email-addresses")).addresses;
  assert.deepEqual([kept.address, kept.verified, kept.notices], ["ann@example.org", true, true]);

  // At phone width the section fits the screen.
  await ann.setViewportSize(PHONE);
  await fitsWidth(ann);
  await shot(ann, "account-email-phone");

  await row.getByRole("button", { name: "Remove" }).click();
  await row.waitFor({ state: "detached" });
  assert.deepEqual((await asPlayer(ann, "GET", "/v1/me/email-addresses")).addresses, []);
  assert.deepEqual(ann.errors, []);
});

test("the notices chosen per channel, quiet hours, the digest and the time zone are saved and kept", async () => {
  // Bea's device keeps London time, so the page offers to fill it in for her.
  const bea = await joinIn(await browser.newContext({ timezoneId: "Europe/London" }), "Bea");
  await bea.getByRole("link", { name: "Account" }).click();
  await bea.getByRole("heading", { name: "What you are told" }).waitFor();
  const before = await asPlayer(bea, "GET", "/v1/me/notice-preferences");
  assert.ok(before.email.includes("game.your_turn"), JSON.stringify(before));

  await bea.getByLabel("Your move, by email").uncheck();
  await bea.getByLabel("A game ends, pushed").check();
  await bea.getByLabel("Quiet hours").check();
  await bea.getByLabel("From").fill("22:00");
  await bea.getByLabel("Until").fill("07:00");
  await bea.getByLabel("One email a day instead").check();
  await bea.getByLabel("Sent at").selectOption("8");
  assert.equal(await bea.getByLabel("Time zone").inputValue(), "UTC");
  await bea.getByRole("button", { name: "Use this device’s time zone" }).click();
  assert.equal(await bea.getByLabel("Time zone").inputValue(), "Europe/London");
  await bea.getByRole("button", { name: "Save" }).click();
  await bea.getByText("Saved.").waitFor();

  await bea.reload();
  await bea.getByRole("heading", { name: "What you are told" }).waitFor();
  assert.equal(await bea.getByLabel("Your move, by email").isChecked(), false);
  assert.equal(await bea.getByLabel("Your move, pushed").isChecked(), before.push.includes("game.your_turn"));
  assert.equal(await bea.getByLabel("A game ends, pushed").isChecked(), true);
  assert.equal(await bea.getByLabel("Quiet hours").isChecked(), true);
  assert.equal(await bea.getByLabel("From").inputValue(), "22:00");
  assert.equal(await bea.getByLabel("Until").inputValue(), "07:00");
  assert.equal(await bea.getByLabel("One email a day instead").isChecked(), true);
  assert.equal(await bea.getByLabel("Sent at").inputValue(), "8");
  assert.equal(await bea.getByLabel("Time zone").inputValue(), "Europe/London");

  const kept = await asPlayer(bea, "GET", "/v1/me/notice-preferences");
  assert.ok(!kept.email.includes("game.your_turn"), JSON.stringify(kept));
  assert.ok(kept.push.includes("game.finished"), JSON.stringify(kept));
  assert.deepEqual(kept.quiet_hours, { from: "22:00", until: "07:00" });
  assert.deepEqual([kept.email_digest, kept.digest_hour, kept.time_zone], [true, 8, "Europe/London"]);
  await shot(bea, "account-preferences");

  // A time zone the server does not know is refused in words, and nothing is changed.
  await bea.getByLabel("Time zone").fill("Mars/Olympus");
  await bea.getByRole("button", { name: "Save" }).click();
  await bea.locator(".preferences").getByRole("alert").waitFor();
  assert.equal((await asPlayer(bea, "GET", "/v1/me/notice-preferences")).time_zone, "Europe/London");

  // Quiet hours turned off again are sent as none.
  await bea.getByLabel("Time zone").fill("Europe/London");
  await bea.getByLabel("Quiet hours").uncheck();
  await bea.getByRole("button", { name: "Save" }).click();
  await bea.getByText("Saved.").waitFor();
  assert.equal((await asPlayer(bea, "GET", "/v1/me/notice-preferences")).quiet_hours ?? null, null);

  await bea.setViewportSize(PHONE);
  await fitsWidth(bea);
  await shot(bea, "account-preferences-phone");
  assert.deepEqual(bea.errors, []);
});

test("a player with no device and no passkey signs in by the link mailed to an address they confirmed", { skip: !SINK && "SMTP_SINK is not set: web/check.sh starts the sink" }, async () => {
  const eve = await join(browser, "Eve");
  const seen = (await mailsTo("eve@example.org")).length;
  await asPlayer(eve, "POST", "/v1/me/email-addresses", { address: "eve@example.org" });
  const confirm = await linkMailed("eve@example.org", seen, "/v1/email/verify");
  assert.equal((await fetch(confirm, { method: "POST" })).status, 200);

  // Eve's only device is lost: a new phone, knowing nothing of her account, asks for a link.
  const phone = await (await browser.newContext({ viewport: PHONE })).newPage();
  await phone.goto(`${BASE}/play/sign-in`);
  const byMail = phone.locator("form", { has: phone.getByRole("heading", { name: "No device and no passkey?" }) });
  const before = (await mailsTo("eve@example.org")).length;
  await byMail.getByLabel("Email address").fill("eve@example.org");
  await byMail.getByRole("button", { name: "Mail me a sign-in link" }).click();
  await byMail.getByText("If an account here has confirmed eve@example.org, a sign-in link is on its way.", { exact: false }).waitFor();
  await fitsWidth(phone);
  await shot(phone, "sign-in-by-mail-phone");
  const link = await linkMailed("eve@example.org", before, "/play/sign-in", 15000, /https?:\/\/[^\s"'<>]+\/play\/sign-in#code=mailin_[0-9a-f]+/);

  // The link fills in the code and leaves no trace of it in the address bar.
  await phone.goto(link);
  await phone.getByLabel("Name for this device").fill("new phone");
  assert.match(await phone.getByLabel("One-time code").inputValue(), /^mailin_[0-9a-f]{32}$/);
  assert.ok(!phone.url().includes("code="), phone.url());
  await phone.getByRole("button", { name: "Sign in", exact: true }).click();
  await phone.getByRole("heading", { name: "Eve’s games" }).waitFor();
  const me = await asPlayer(phone, "GET", "/v1/me");
  assert.equal(me.tokens.at(-1).signed_in_with, "email");

  // The same link again opens nothing.
  const other = await (await browser.newContext()).newPage();
  await other.goto(link);
  await other.getByRole("button", { name: "Sign in", exact: true }).click();
  await other.getByRole("alert").waitFor();
});
