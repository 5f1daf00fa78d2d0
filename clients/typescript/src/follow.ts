// A third-party app following games by webhook, typed end to end: it runs a receiver, has an
// account register it, plays a hosted GIRL game between two accounts to the end, and checks
// that every message verifies with `verifyWebhook` and reads as the document's `WebhookPayload`.
//
//   node dist/follow.js http://127.0.0.1:8080
//
// The server must be allowed to send to 127.0.0.1 (PARLOUR_WEBHOOKS_ALLOW_PRIVATE=1, as
// check.sh starts it). Exits non-zero if anything is refused, forged or missing.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import { moveFrom } from "./girl.js";
import type { components, paths } from "./parlour.js";
import { verifyWebhook, WebhookVerificationError, type Headers, type WebhookPayload } from "./webhooks.js";

type Schemas = components["schemas"];

const baseUrl = process.argv[2] ?? process.env.PARLOUR_URL ?? "http://127.0.0.1:8080";
const client = createClient<paths>({ baseUrl });

function fail(what: string, detail?: unknown): never {
  console.error(`follow: ${what}`, detail === undefined ? "" : JSON.stringify(detail));
  process.exit(1);
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

interface Received {
  headers: Headers;
  body: string;
}
const received: Received[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
    response.writeHead(204).end();
  });
});
await new Promise<void>((ready) => receiver.listen(0, "127.0.0.1", ready));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

async function account(name: string): Promise<string> {
  const { data, error } = await client.POST("/v1/accounts", { body: { name } });
  if (data === undefined) fail(`no account for ${name}`, error);
  return data.token.secret;
}
const ann = await account("Ann");
const bea = await account("Bea");

const events: Schemas["WebhookEventType"][] = [
  "game.started",
  "game.your_turn",
  "game.finished",
  "invitation.accepted",
];
const registered = await client.POST("/v1/webhooks", {
  headers: bearer(ann),
  body: { url: hookUrl, events, description: "the typed follower" },
});
if (registered.data === undefined) fail("the webhook was refused", registered.error);
const { secret, webhook } = registered.data;
console.log(`registered ${webhook.id} for ${webhook.events.join(", ")}`);

const hosted = await client.POST("/v1/me/games", {
  headers: bearer(ann),
  body: { game: "girl", seats: [{ kind: "me" }, { kind: "anyone" }] },
});
if (hosted.data === undefined) fail("the game was not hosted", hosted.error);
const game = hosted.data.id;
const claimed = await client.POST("/v1/games/{id}/seats/{seat}/claim", {
  params: { path: { id: game, seat: 1 } },
  headers: bearer(bea),
  body: {},
});
if (claimed.data === undefined) fail("Bea could not claim seat 1", claimed.error);

const tokens = [ann, bea];
let moves = 0;
for (;;) {
  const { data: view, error } = await client.GET("/v1/games/{id}", { params: { path: { id: game } } });
  if (view === undefined) fail("the public view was refused", error);
  if (view.status === "finished") break;
  const seat = view.to_act[0] ?? fail("nobody is to act in a game not finished");
  const token = tokens[seat] ?? fail(`no token for seat ${seat}`);
  const mine = await client.GET("/v1/games/{id}", { params: { path: { id: game } }, headers: bearer(token) });
  if (mine.data === undefined || mine.data.game !== "girl") fail("seat's view refused", mine.error);
  const legal = mine.data.legal_actions[0] ?? fail(`seat ${seat} has no legal action`);
  const moved = await client.POST("/v1/games/{id}/actions", {
    params: { path: { id: game } },
    headers: bearer(token),
    body: moveFrom(legal),
  });
  if (moved.data === undefined) fail(`move ${moves} was refused`, moved.error);
  if (++moves > 1000) fail("the game did not end in 1000 moves");
}
console.log(`played ${game} to the end in ${moves} moves`);

// The relay sends after the commit: wait (up to a minute) for the last notice to come in.
const finished = (r: Received) => JSON.parse(r.body).type === "game.finished";
for (let waited = 0; !received.some(finished); waited += 100) {
  if (waited > 60_000) fail(`no game.finished among ${received.length} messages`);
  await new Promise((tick) => setTimeout(tick, 100));
}
receiver.close();

const seen = new Map<WebhookPayload["type"], number>();
for (const message of received) {
  const payload = verifyWebhook(secret, message.headers, message.body);
  // The payload is typed: `data` is Ann's own inbox row of the game, never a card.
  if (payload.data?.id !== game) fail("a message about another game", payload);
  if (payload.data.seat !== 0) fail("a message placing Ann in another seat", payload);
  if (payload.type === "game.your_turn" && payload.data.asked !== "move") {
    fail("a your_turn message that asks nothing", payload);
  }
  seen.set(payload.type, (seen.get(payload.type) ?? 0) + 1);
}
for (const type of events) {
  if (!seen.has(type)) fail(`no ${type} among ${[...seen.keys()].join(", ")}`);
}

// And what is not Parlour's is refused: a changed body, and the right body under another key.
const sample = received[0] ?? fail("no message");
for (const [what, key, body] of [
  // One byte more, whatever the message (its type need not start with "game.").
  ["a changed body", secret, sample.body.replace("{", "{ ")],
  ["another secret", "whsec_c2VjcmV0LW5vdC1wYXJsb3Vycy1zZWNyZXQ=", sample.body],
] as const) {
  try {
    verifyWebhook(key, sample.headers, body);
    fail(`${what} verified`);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
  }
}
const counts = [...seen].map(([type, n]) => `${n} ${type}`).join(", ");
console.log(`${received.length} messages verified and typed (${counts}); forgeries refused`);
