// OAuth 2.0 for apps, from the app's side and the player's: a tiny third-party app (a page
// served here, on loopback, on a port of its own) sends the browser to /play/authorize with a
// PKCE challenge; the player allows it (or denies it), and the app, cross-origin, exchanges
// the code at /oauth/token and calls the API with what it got, within its scopes only. The
// account page lists the app, and removing it there signs the app out.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { BASE, launch, shot } from "./helpers.mjs";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { width: 390, height: 844 };
const CLIENT_ID = "example.app";

let browser;
let app;
/** The app's origin: `http://127.0.0.1:<its port>`. */
let APP;

/** The app's pages. `/` has a button that makes a PKCE verifier and its S256 challenge and a
 * state, keeps them in sessionStorage and sends the browser to Parlour's consent page;
 * `/callback` checks the state, exchanges the code, calls `GET /v1/me`, follows the notices
 * in an `EventSource` with a stream ticket (twice: the second is refused) and calls
 * `POST /v1/webhooks` (outside its scopes) with the token, and writes all it learned into
 * `#result` as JSON, setting `data-done` on the body when it has. */
function appPage(path) {
  const script = path === "/callback" ? CALLBACK : START;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Example app</title></head>
<body>
<h1>Example app</h1>
${path === "/callback" ? '<pre id="result"></pre>' : '<button type="button" id="connect">Connect Parlour</button>'}
<script type="module">
const PARLOUR = ${JSON.stringify(BASE)};
const CLIENT_ID = ${JSON.stringify(CLIENT_ID)};
const REDIRECT_URI = location.origin + "/callback";
const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
${script}
</script>
</body>
</html>`;
}

const START = `
document.getElementById("connect").addEventListener("click", async () => {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem("verifier", verifier);
  sessionStorage.setItem("state", state);
  const query = Object.entries({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: "games:read games:play",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  }).map(([name, value]) => name + "=" + encodeURIComponent(value)).join("&");
  location.assign(PARLOUR + "/play/authorize?" + query);
});
`;

const CALLBACK = `
const params = new URLSearchParams(location.search);
const result = { query: Object.fromEntries(params), state_matches: params.get("state") === sessionStorage.getItem("state") };
const answer = async (response) => {
  const text = await response.text();
  try { return JSON.parse(text); } catch { return text; }
};
try {
  if (result.state_matches && params.get("code")) {
    const exchanged = await fetch(PARLOUR + "/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: params.get("code"),
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: sessionStorage.getItem("verifier"),
      }).toString(),
    });
    result.token_status = exchanged.status;
    result.token = await answer(exchanged);
    const bearer = { authorization: "Bearer " + result.token.access_token };
    const me = await fetch(PARLOUR + "/v1/me", { headers: bearer });
    result.me_status = me.status;
    result.me = await answer(me);
    // An EventSource cannot send Authorization: the app trades its token for a stream
    // ticket and opens the notices with that, once.
    const asked = await fetch(PARLOUR + "/v1/me/stream/tickets", { method: "POST", headers: bearer });
    result.ticket_status = asked.status;
    result.ticket = await answer(asked);
    const follow = (url) => new Promise((resolve) => {
      const source = new EventSource(PARLOUR + url);
      source.onopen = () => { source.close(); resolve("open"); };
      source.onerror = () => { const state = source.readyState; source.close(); resolve(state === EventSource.CLOSED ? "refused" : "error"); };
    });
    result.stream = await follow(result.ticket.url);
    result.stream_again = await follow(result.ticket.url);
    const hook = await fetch(PARLOUR + "/v1/webhooks", {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/parlour/hooks", events: ["game.your_turn"] }),
    });
    result.webhook_status = hook.status;
    result.webhook_content_type = hook.headers.get("content-type");
    result.webhook_www_authenticate = hook.headers.get("www-authenticate");
    result.webhook = await answer(hook);
  }
} catch (error) {
  result.exception = String(error);
}
document.getElementById("result").textContent = JSON.stringify(result);
document.body.dataset.done = "1";
`;

before(async () => {
  browser = await launch();
  app = createServer((request, response) => {
    const path = new URL(request.url, "http://app").pathname;
    if (path !== "/" && path !== "/callback") {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(appPage(path));
  });
  await new Promise((resolve) => app.listen(0, "127.0.0.1", resolve));
  APP = `http://127.0.0.1:${app.address().port}`;
});
after(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve()));
});

/** axe's critical and serious faults on the page (as in a11y.test.mjs). */
async function faults(page) {
  await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => null))));
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations.filter((v) => v.impact === "critical" || v.impact === "serious").map((v) => `${v.impact}: ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** A device (browser context) with a page that records the page's uncaught errors. */
async function device(viewport) {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error));
  page.errors = errors;
  return page;
}

/** An account made through the API, signed in on `page` by keeping its token where the
 * client keeps it. */
async function signedIn(page, name) {
  const response = await fetch(`${BASE}/v1/accounts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, token_name: "laptop" }),
  });
  assert.equal(response.status, 201, await response.clone().text());
  const created = await response.json();
  await page.goto(`${BASE}/play/sign-in`);
  await page.evaluate((token) => localStorage.setItem("parlour.token", token), created.token.secret);
  return created;
}

/** Opens the app and presses its button: the browser lands on Parlour's consent page. */
async function connect(page) {
  await page.goto(`${APP}/`);
  await page.getByRole("button", { name: "Connect Parlour" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${BASE}/play/authorize?`));
  await page.getByRole("heading", { name: `Let ${CLIENT_ID} use your Parlour account?` }).waitFor();
}

/** What the app's callback page learned. */
async function appResult(page) {
  await page.waitForURL((url) => url.href.startsWith(`${APP}/callback`));
  await page.locator("body[data-done]").waitFor();
  return JSON.parse(await page.locator("#result").textContent());
}

/** `GET /v1/me` with `token`, from outside the browser. */
function meWith(token) {
  return fetch(`${BASE}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
}

test("an app the player allows gets a token for the account within its scopes, listed on the account page until removed there", async () => {
  const page = await device();
  await signedIn(page, "Olive");
  await connect(page);

  // The consent page: which app, where it sends the player back, which account, what it may do.
  const facts = page.locator(".consent-facts");
  assert.equal(await facts.locator("[data-app]").innerText(), CLIENT_ID);
  assert.equal(await facts.locator("[data-origin]").innerText(), APP);
  assert.equal(await facts.locator("[data-account]").innerText(), "Olive");
  const scopes = page.getByRole("list", { name: "It will be able to" }).getByRole("listitem");
  assert.deepEqual(await scopes.evaluateAll((items) => items.map((item) => item.dataset.scope)), ["games:read", "games:play"]);
  assert.match(await scopes.nth(0).innerText(), /^See your games/);
  assert.match(await scopes.nth(1).innerText(), /^Play your moves/);
  // Focus starts at the question, not on a button a stray Enter would press.
  assert.equal(await page.evaluate(() => document.activeElement?.id), "consent-title");
  assert.equal(await page.title(), `Allow ${CLIENT_ID}? — Parlour`);
  await shot(page, "authorize-desktop");
  assert.deepEqual(await faults(page), []);

  await page.getByRole("button", { name: "Allow" }).click();
  const result = await appResult(page);
  assert.equal(result.state_matches, true, JSON.stringify(result));
  assert.match(result.query.code ?? "", /^oacode_/);
  assert.equal(result.exception, undefined, result.exception);
  assert.equal(result.token_status, 200, JSON.stringify(result.token));
  assert.equal(result.token.token_type, "Bearer");
  assert.equal(result.token.scope, "games:read games:play");
  assert.match(result.token.access_token, /^acct_/);
  // The token opens the player's account...
  assert.equal(result.me_status, 200, JSON.stringify(result.me));
  assert.equal(result.me.account.name, "Olive");
  const own = result.me.tokens.find((token) => token.current);
  assert.equal(own?.app, CLIENT_ID, JSON.stringify(result.me.tokens));
  assert.deepEqual([...(own?.scopes ?? [])].sort(), ["games:play", "games:read"]);
  // Its EventSource follows the notices with a ticket, which opens them once only.
  assert.equal(result.ticket_status, 201, JSON.stringify(result.ticket));
  assert.match(result.ticket.url, /^\/v1\/me\/stream\?ticket=stkt_[0-9a-f]{64}$/);
  assert.equal(result.stream, "open");
  assert.equal(result.stream_again, "refused");
  // ...but not the webhooks, which it was not given.
  assert.equal(result.webhook_status, 403, JSON.stringify(result.webhook));
  assert.match(result.webhook_content_type ?? "", /^application\/problem\+json/);
  assert.match(result.webhook.type, /\/problems\/insufficient-scope$/);
  assert.equal(result.webhook.scope, "webhooks:manage");
  assert.match(result.webhook_www_authenticate ?? "", /insufficient_scope/);
  assert.match(result.webhook_www_authenticate ?? "", /scope="webhooks:manage"/);
  const access = result.token.access_token;
  assert.equal((await meWith(access)).status, 200);

  // The account page lists the app, what it may do and when it was let in, and the device
  // list says which token is the app's and what it is limited to.
  await page.goto(`${BASE}/play/account`);
  const section = page.locator('section[aria-labelledby="apps"]');
  await section.getByRole("heading", { name: "Apps" }).waitFor();
  const row = section.locator(`.apps > li[data-app="${CLIENT_ID}"]`);
  await row.waitFor();
  assert.match(await row.innerText(), /allowed /);
  const listed = row.getByRole("list", { name: `What ${CLIENT_ID} may do` }).getByRole("listitem");
  assert.deepEqual(await listed.evaluateAll((items) => items.map((item) => item.dataset.scope)), ["games:read", "games:play"]);
  assert.match(await listed.nth(0).innerText(), /^See your games/);
  const appToken = page.locator(".devices li", { hasText: `app ${CLIENT_ID}` });
  await appToken.waitFor();
  assert.match(await appToken.locator(".quiet").innerText(), new RegExp(`· app ${CLIENT_ID.replace(".", "\\.")} · only see games, play$`));
  // The browser's own token may do everything: its row names no app and no limit.
  const here = page.locator(".devices li", { hasText: "(this device)" });
  assert.doesNotMatch(await here.locator(".quiet").innerText(), /app |only /);
  await shot(page, "account-apps");
  assert.deepEqual(await faults(page), []);

  // Removed, the app is signed out: its token is refused, and it is gone from both lists.
  await row.getByRole("button", { name: "Remove" }).click();
  await row.waitFor({ state: "detached" });
  await section.getByText("No app may use your account.").waitFor();
  await section.locator(".notice", { hasText: `${CLIENT_ID} is signed out` }).waitFor();
  await appToken.waitFor({ state: "detached" });
  assert.equal((await meWith(access)).status, 401);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test("a player signed out joins and comes back to the question; Deny sends the app an access_denied; a bad request offers no way back unless the server gives one", async () => {
  const page = await device(PHONE);
  await connect(page);
  const consentAt = page.url();
  // Signed out: the page says which app asks, and offers to sign in or join first.
  assert.equal(await page.locator(".consent-facts [data-account]").innerText(), "not signed in on this device");
  assert.equal(await page.getByRole("button", { name: "Allow" }).count(), 0);
  await page.locator(".consent-actions").getByRole("link", { name: "Sign in", exact: true }).waitFor();
  await shot(page, "authorize-signed-out-phone");
  assert.deepEqual(await faults(page), []);

  await page.locator(".consent-actions").getByRole("link", { name: "Join Parlour" }).click();
  await page.getByLabel("Your name").waitFor();
  // The way to sign in from there instead keeps the way back too.
  const signInLink = await page.getByRole("link", { name: "Sign in with a code or a passkey" }).getAttribute("href");
  assert.equal(new URL(signInLink, BASE).searchParams.get("next"), new URL(consentAt).pathname + new URL(consentAt).search);
  await page.getByLabel("Your name").fill("Pip");
  await page.getByRole("button", { name: "Join" }).click();
  await page.getByRole("heading", { name: `Let ${CLIENT_ID} use your Parlour account?` }).waitFor();
  assert.equal(page.url(), consentAt);
  assert.equal(await page.locator(".consent-facts [data-account]").innerText(), "Pip");
  await shot(page, "authorize-phone");
  assert.deepEqual(await faults(page), []);

  const state = new URL(consentAt).searchParams.get("state");
  await page.getByRole("button", { name: "Deny" }).click();
  const denied = await appResult(page);
  assert.equal(denied.query.error, "access_denied");
  assert.equal(denied.query.state, state);
  assert.equal(denied.state_matches, true);
  assert.equal(denied.query.code, undefined);

  // A redirect_uri that is no web address: the problem is shown, and nothing leads anywhere.
  const request = (changes) =>
    `${BASE}/play/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: `${APP}/callback`,
      scope: "games:read",
      state: "s-123",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      ...changes,
    })}`;
  const bad = request({ redirect_uri: "ftp://x" });
  await page.goto(bad);
  await page.getByRole("heading", { name: "This app’s request can’t be answered" }).waitFor();
  const said = await page.getByRole("alert").innerText();
  assert.ok(said.length > 10, said);
  assert.equal(await page.getByRole("link", { name: "Back to the app" }).count(), 0);
  assert.equal(await page.getByRole("button", { name: "Allow" }).count(), 0);
  await page.waitForTimeout(300);
  assert.equal(page.url(), bad);
  await shot(page, "authorize-bad-redirect");
  assert.deepEqual(await faults(page), []);

  // A scope there is not, from an app whose address is good: the problem, and the way back
  // the server gives, which tells the app.
  await page.goto(request({ scope: "games:read games:everything" }));
  await page.getByRole("heading", { name: "This app’s request can’t be answered" }).waitFor();
  await page.getByRole("alert").waitFor();
  const back = page.getByRole("link", { name: "Back to the app" });
  const href = new URL(await back.getAttribute("href"));
  assert.equal(href.origin + href.pathname, `${APP}/callback`);
  assert.equal(href.searchParams.get("error"), "invalid_scope");
  assert.equal(href.searchParams.get("state"), "s-123");
  await back.click();
  const told = await appResult(page);
  assert.equal(told.query.error, "invalid_scope");
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
