// Passkeys, with Chromium's virtual authenticator (DevTools' WebAuthn domain) standing in for
// the phone or password manager: one is added on the account page, signs the account in on a
// new device that knows nothing of it, and once removed signs nothing in.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { BASE, host, launch, shot } from "./helpers.mjs";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// A browser makes passkeys only at a domain name, and the server on loopback is the relying
// party `localhost`: these pages are opened there, not at 127.0.0.1.
const LOCAL_BASE = BASE.replace("127.0.0.1", "localhost");
const PHONE = { width: 390, height: 844 };

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** A device with an authenticator of its own that verifies its user without asking, holding
 * `credentials` (copied from another: the same passkey kept by a password manager). */
async function device(viewport, credentials = []) {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error));
  page.errors = errors;
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  for (const credential of credentials) {
    await cdp.send("WebAuthn.addCredential", { authenticatorId, credential: { ...credential, isResidentCredential: true, rpId: "localhost" } });
  }
  return { page, credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials };
}

/** axe's critical and serious faults on the page (as in a11y.test.mjs, which sees the
 * account page only at 127.0.0.1, where the passkeys section has no list and no form). */
async function faults(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations.filter((v) => v.impact === "critical" || v.impact === "serious").map((v) => `${v.impact}: ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Opens the sign-in page and presses "Sign in with a passkey". */
async function signInWithPasskey(page) {
  await page.goto(`${LOCAL_BASE}/play/sign-in`);
  await page.getByLabel("Name for this device").fill("borrowed laptop");
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
}

test("a passkey added on the account page signs the account in on a new device, and once removed signs nothing in", async () => {
  const first = await device();
  const page = first.page;
  await page.goto(`${LOCAL_BASE}/play`);
  await page.getByLabel("Your name").fill("Peg");
  await page.getByRole("button", { name: "Join" }).click();
  await page.getByRole("heading", { name: "Peg’s games" }).waitFor();
  // A game of hers, waiting for a friend, that the lost device must not take with it.
  const { id } = await host(page, { game: "girl", players: 2, seats: ["me", "invitation"] });

  await page.getByRole("link", { name: "Account" }).click();
  const section = page.locator('section[aria-labelledby="passkeys"]');
  await section.getByRole("heading", { name: "Passkeys" }).waitFor();
  await section.getByText("No passkey yet.").waitFor();
  assert.equal(await section.getByLabel("Name for this passkey").inputValue(), "This device");
  await section.getByLabel("Name for this passkey").fill("Peg’s laptop");
  await section.getByRole("button", { name: "Add a passkey" }).click();
  const row = section.locator(".passkeys li", { hasText: "Peg’s laptop" });
  await row.waitFor();
  assert.match(await row.innerText(), /added .+ · not used yet/);
  await section.locator(".notice", { hasText: "Passkey “Peg’s laptop” added" }).waitFor();
  const held = await first.credentials();
  assert.equal(held.length, 1);
  assert.equal(held[0].rpId, "localhost");

  // A new device, signed in to nothing, whose authenticator holds the same passkey.
  const second = await device(PHONE, held);
  await signInWithPasskey(second.page);
  await second.page.getByRole("heading", { name: "Peg’s games" }).waitFor();
  await second.page.locator(`.inbox-row[data-game="${id}"]`).waitFor();

  // The first device sees the new one, and how it signed in; the passkey was used.
  await page.reload();
  const newcomer = page.locator(".devices li", { hasText: "borrowed laptop" });
  await newcomer.waitFor();
  assert.match(await newcomer.locator(".quiet").innerText(), /signed in with a passkey/);
  assert.match(await page.locator(".devices li", { hasText: "(this device)" }).locator(".quiet").innerText(), /joined here/);
  await row.getByText(/last used /).waitFor();
  await shot(page, "account-passkeys-desktop");
  assert.deepEqual(await faults(page), []);
  await second.page.goto(`${LOCAL_BASE}/play/account`);
  await second.page.locator(".passkeys li", { hasText: "Peg’s laptop" }).waitFor();
  await shot(second.page, "account-passkeys-phone");
  assert.deepEqual(await faults(second.page), []);

  // Removed, it signs nothing in: a third device holding it is refused, in words.
  await row.getByRole("button", { name: "Remove" }).click();
  await row.waitFor({ state: "detached" });
  await section.getByText("No passkey yet.").waitFor();
  const third = await device(undefined, held);
  await signInWithPasskey(third.page);
  await third.page.getByRole("alert").getByText("That passkey did not sign you in").waitFor();
  assert.equal(await third.page.evaluate(() => localStorage.getItem("parlour.token")), null);
  await shot(third.page, "sign-in-passkey-refused");
  assert.deepEqual(await faults(third.page), []);

  for (const { page: each } of [first, second, third]) assert.deepEqual(each.errors, []);
  for (const { page: each } of [first, second, third]) await each.context().close();
});

test("at 127.0.0.1 the pages explain that passkeys need the server's name instead of offering them", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${BASE}/play/sign-in`);
  await page.getByText(/Passkeys work only when Parlour is opened at its name \(here, localhost:\d+\)/).waitFor();
  assert.equal(await page.getByRole("button", { name: "Sign in with a passkey" }).count(), 0);
  await context.close();
});
