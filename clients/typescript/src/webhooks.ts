// Receiving Parlour's webhooks in TypeScript: verify a message by the Standard Webhooks scheme
// and get its body typed as the OpenAPI document's `WebhookPayload`.
//
//   const payload = verifyWebhook(secret, request.headers, body);   // throws if not genuine
//   if (payload.type === "game.your_turn") notify(payload.data?.id);
//
// Only Node's own `crypto`: nothing to install beyond the generated types.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { components } from "./parlour.js";

/** The body of every message, as the document types it. */
export type WebhookPayload = components["schemas"]["WebhookPayload"];
/** What a message can tell of. */
export type WebhookEventType = components["schemas"]["WebhookEventType"];

/** How far a message's `webhook-timestamp` may be from now (the scheme's recommendation). */
export const TOLERANCE_SECONDS = 5 * 60;

/** Why a message was not accepted as Parlour's. */
export class WebhookVerificationError extends Error {}

/** Headers as Node's `IncomingMessage` (or a plain record) holds them. */
export type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string {
  const value = headers[name] ?? headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === "") {
    throw new WebhookVerificationError(`no ${name} header`);
  }
  return text;
}

/** The key a `whsec_…` secret stands for. */
function keyOf(secret: string): Buffer {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const key = Buffer.from(base64, "base64");
  if (key.length === 0) throw new WebhookVerificationError("the secret is not base64");
  return key;
}

/**
 * Checks that `body` (the exact bytes received) was signed with `secret` and is fresh, and
 * returns it parsed. During a secret rotation a message carries several signatures; one
 * matching is enough. Throws {@link WebhookVerificationError} otherwise.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers,
  body: string | Buffer,
  now: Date = new Date(),
): WebhookPayload {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  const seconds = Number(timestamp);
  if (!/^[0-9]+$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is not a time`);
  }
  if (Math.abs(now.getTime() / 1000 - seconds) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is too far from now`);
  }
  const text = typeof body === "string" ? body : body.toString("utf8");
  const expected = createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${text}`).digest();
  const genuine = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    if (version !== "v1" || signature === undefined) return false;
    const given = Buffer.from(signature, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!genuine) throw new WebhookVerificationError("no signature matches the secret");
  return JSON.parse(text) as WebhookPayload;
}
