// Told with the tab closed: the page subscribes this device to Web Push when the player asks,
// the server encrypts each notice for it and sends it to the device's push service, and the
// service worker shows it as a system notification whose click opens the table.
//
// The push service is the test's own, on loopback, as a browser vendor runs one: it checks each
// request's VAPID signature (RFC 8292), opens the message with the subscription's private key
// (RFC 8291) and hands the plaintext to the device's service worker through Chromium's DevTools
// protocol (`ServiceWorker.deliverPushMessage`). One part is stood in for: headless Chromium
// cannot register with its vendor's push service, so `PushManager.subscribe` answers with a
// subscription at this test's service, whose keys the test holds.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import crypto from "node:crypto";
import { BASE, asPlayer, claim, concrete, host, join, joinIn, launch, shot } from "./helpers.mjs";

const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

let browser;
let service;
before(async () => {
  browser = await launch();
  service = await pushService();
});
after(async () => {
  await browser?.close();
  service?.server.close();
});

/** A loopback push service: subscriptions it made (endpoint → keys), and the plaintexts it
 * opened, each handed to whoever waits for it. */
async function pushService() {
  const subscriptions = new Map();
  const received = [];
  const waiting = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const sub = subscriptions.get(request.url);
      if (!sub) {
        response.writeHead(404).end();
        return;
      }
      try {
        await checkVapid(request.headers.authorization ?? "", `http://${request.headers.host}`);
        assert.equal(request.headers["content-encoding"], "aes128gcm");
        assert.ok(Number(request.headers.ttl) > 0, "a TTL is set");
        const text = open(Buffer.concat(chunks), sub);
        const notice = JSON.parse(text);
        received.push(notice);
        await sub.deliver?.(text);
        for (const wake of waiting.splice(0)) wake();
        response.writeHead(201).end();
      } catch (error) {
        console.error("the push service refused a push:", error);
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  let serverKey;
  async function checkVapid(header, audience) {
    serverKey ??= (await (await fetch(`${BASE}/v1/push/key`)).json()).application_server_key;
    const fields = Object.fromEntries(header.replace(/^vapid /, "").split(/,\s*/).map((part) => part.split("=")));
    assert.equal(fields.k, serverKey, "signed with the key the server publishes");
    const [head, claims, signature] = fields.t.split(".");
    const raw = Buffer.from(fields.k, "base64url");
    const key = crypto.createPublicKey({ key: { kty: "EC", crv: "P-256", x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) }, format: "jwk" });
    const valid = crypto.verify("sha256", Buffer.from(`${head}.${claims}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"));
    assert.ok(valid, "the VAPID signature verifies");
    const claimed = JSON.parse(Buffer.from(claims, "base64url").toString());
    assert.equal(claimed.aud, audience);
    assert.ok(claimed.exp > Date.now() / 1000);
  }
  return {
    server,
    received,
    /** A new subscription: its endpoint and the keys a browser would give the page. */
    subscribe() {
      const ecdh = crypto.createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      const path = `/push/${crypto.randomUUID()}`;
      const sub = { ecdh, auth, deliver: null };
      subscriptions.set(path, sub);
      return { sub, endpoint: `${origin}${path}`, p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) };
    },
    async next(matching) {
      for (;;) {
        const found = received.find(matching);
        if (found) return found;
        await new Promise((resolve) => waiting.push(resolve));
      }
    },
  };
}

/** RFC 8291 §3.4 and RFC 8188: one aes128gcm record opened with the subscription's keys. */
function open(body, { ecdh, auth }) {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const serverPublic = body.subarray(21, 21 + idlen);
  const cipher = body.subarray(21 + idlen);
  const shared = ecdh.computeSecret(serverPublic);
  const info = Buffer.concat([Buffer.from("WebPush: info\0"), ecdh.getPublicKey(), serverPublic]);
  const ikm = Buffer.from(crypto.hkdfSync("sha256", shared, auth, info, 32));
  const cek = Buffer.from(crypto.hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(crypto.hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = crypto.createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(cipher.subarray(cipher.length - 16));
  const padded = Buffer.concat([decipher.update(cipher.subarray(0, cipher.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then zeros.
  let end = padded.length - 1;
  while (padded[end] === 0) end -= 1;
  assert.equal(padded[end], 2, "the last record's delimiter");
  return padded.subarray(0, end).toString("utf8");
}

/** A player on a device whose browser subscribes at the test's push service. */
async function joinWithPush(name) {
  const { sub, endpoint, p256dh, auth } = service.subscribe();
  const context = await browser.newContext();
  await context.grantPermissions(["notifications"], { origin: BASE });
  await context.addInitScript(({ endpoint, p256dh, auth }) => {
    const made = (options) => ({
      endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: options.applicationServerKey },
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
      unsubscribe: async () => {
        localStorage.removeItem("test.push-key");
        return true;
      },
    });
    PushManager.prototype.subscribe = async function (options) {
      const key = new Uint8Array(options.applicationServerKey);
      localStorage.setItem("test.push-key", JSON.stringify([...key]));
      return made({ applicationServerKey: key.buffer });
    };
    PushManager.prototype.getSubscription = async function () {
      const kept = localStorage.getItem("test.push-key");
      return kept ? made({ applicationServerKey: new Uint8Array(JSON.parse(kept)).buffer }) : null;
    };
  }, { endpoint, p256dh, auth });
  const page = await joinIn(context, name);
  // The DevTools side of the device: its service worker registrations, and a push handed to
  // the one at /play/.
  const cdp = await context.newCDPSession(page);
  const registrations = new Map();
  cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: updated }) => {
    for (const r of updated) registrations.set(r.scopeURL, r);
  });
  await cdp.send("ServiceWorker.enable");
  sub.deliver = async (data) => {
    const registration = registrations.get(`${BASE}/play/`);
    assert.ok(registration, "the page registered its service worker at /play/");
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: new URL(BASE).origin, registrationId: registration.registrationId, data });
  };
  return { page, context, endpoint };
}

/** The notifications the device's service worker shows now. */
async function shown(page) {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration("/play/sw.js");
    const notes = (await registration?.getNotifications()) ?? [];
    return notes.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data?.url }));
  });
}

test("a player who asks is told of their move by push, and the notification opens the table", async () => {
  const { page: ann, context, endpoint } = await joinWithPush("Ann");
  // Nothing is asked of the browser until the player asks.
  assert.equal(await ann.evaluate(() => navigator.serviceWorker.getRegistration("/play/sw.js").then((r) => r === undefined)), true);
  await ann.getByRole("button", { name: "Tell me when it is my move" }).click();
  await ann.getByRole("button", { name: "Tell me when it is my move" }).waitFor({ state: "detached" });
  const kept = await asPlayer(ann, "GET", "/v1/me/push-subscriptions");
  assert.deepEqual(kept.subscriptions.map((s) => s.endpoint), [endpoint]);

  const bea = await join(browser, "Bea");
  const { links, id } = await host(ann, { game: "girl", players: 2, seats: ["me", "invitation"] });
  await claim(bea, links[0]);
  // Ann looks at another page of Parlour; then Bea's move makes it Ann's.
  await ann.goto(`${BASE}/play/account`);
  await ann.getByRole("heading", { name: "Notifications" }).waitFor();
  // Moves until one of Bea's makes it Ann's move.
  let pushedBefore = service.received.length;
  for (let moves = 0; ; moves++) {
    assert.ok(moves < 12, "Bea's move never made it Ann's move");
    const beas = await asPlayer(bea, "GET", `/v1/games/${id}`);
    if (beas.to_act.includes(1)) {
      pushedBefore = service.received.length;
      await asPlayer(bea, "POST", `/v1/games/${id}/actions`, concrete(beas.legal_actions[0]));
      if ((await asPlayer(ann, "GET", `/v1/games/${id}`)).to_act.includes(0)) break;
    } else {
      const anns = await asPlayer(ann, "GET", `/v1/games/${id}`);
      await asPlayer(ann, "POST", `/v1/games/${id}/actions`, concrete(anns.legal_actions[0]));
    }
  }
  const notice = await service.next((n, i) => i >= pushedBefore && n.type === "game.your_turn" && n.game === id);
  assert.equal(notice.title, "Your move");
  assert.equal(notice.body, "GIRL with Ann, Bea");
  assert.equal(notice.url, `/play/games/${id}`);

  await ann.waitForFunction(async (id) => {
    const registration = await navigator.serviceWorker.getRegistration("/play/sw.js");
    return ((await registration?.getNotifications({ tag: id })) ?? []).some((n) => n.title === "Your move");
  }, id);
  const notes = await shown(ann);
  assert.deepEqual(notes.find((n) => n.tag === id), { title: "Your move", body: "GIRL with Ann, Bea", tag: id, url: `/play/games/${id}` });

  // The click, as the system would give it to the service worker. (A synthetic event has no
  // user activation: the tab is moved, not focused.)
  const [worker] = context.serviceWorkers();
  assert.ok(worker, "the service worker runs");
  await worker.evaluate(async (id) => {
    const [note] = await self.registration.getNotifications({ tag: id });
    try {
      self.dispatchEvent(new NotificationEvent("notificationclick", { notification: note }));
    } catch {
      // waitUntil refuses an untrusted event after the handler has started the work.
    }
  }, id);
  await ann.waitForURL(`${BASE}/play/games/${id}`);
  await ann.locator(".table-body").waitFor();
  assert.deepEqual(ann.errors, []);
});

test("notifications are turned off on the account page, and then nothing is kept for the device", async () => {
  const { page: cy } = await joinWithPush("Cy");
  await cy.getByRole("link", { name: "Account" }).click();
  const told = cy.locator('section[aria-labelledby="notifications"]');
  await told.getByText("This device is not told of your moves while Parlour is closed.").waitFor();
  await told.getByRole("button", { name: "Notify me on this device" }).click();
  await told.getByText(/This device is told, even with Parlour closed, when it is your move/).waitFor();
  await shot(cy, "account-notifications-on");
  await cy.setViewportSize({ width: 390, height: 844 });
  await shot(cy, "account-notifications-on-phone");
  await cy.setViewportSize({ width: 1280, height: 720 });
  assert.equal((await asPlayer(cy, "GET", "/v1/me/push-subscriptions")).subscriptions.length, 1);
  await told.getByRole("button", { name: "Stop notifying this device" }).click();
  await told.getByRole("button", { name: "Notify me on this device" }).waitFor();
  assert.equal((await asPlayer(cy, "GET", "/v1/me/push-subscriptions")).subscriptions.length, 0);
  assert.deepEqual(cy.errors, []);
});
