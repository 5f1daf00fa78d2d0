/** Passkeys: the WebAuthn ceremonies the account page (adding one) and the sign-in page
 * (signing in with one) run. The server hands the browser its options as JSON and takes the
 * browser's answer as JSON, so the page only passes them through. */

import { api, ApiError, ok, type Schemas } from "./api";

/** Why this page cannot make or use passkeys, or null when it can. A browser makes them
 * only on a secure page at a domain name (localhost counts), never at an IP address, and
 * older browsers lack the JSON methods the ceremonies use. */
export function noPasskeysHere(): string | null {
  if (typeof window.PublicKeyCredential !== "function" || typeof PublicKeyCredential.parseCreationOptionsFromJSON !== "function") {
    return "This browser cannot use passkeys on this page: it takes a recent browser and a secure (https) page.";
  }
  if (/^[\d.]+$|^\[/.test(location.hostname)) {
    const named = /^(127\.|\[::1\])/.test(location.hostname) ? ` (here, localhost${location.port ? `:${location.port}` : ""})` : "";
    return `Passkeys work only when Parlour is opened at its name${named}, not at an address.`;
  }
  return null;
}

/** Adds a passkey, kept under `name`, to the signed-in account. */
export async function addPasskey(name: string): Promise<Schemas["Passkey"]> {
  const begun = await ok(api.POST("/v1/me/passkey-registrations"));
  const options = PublicKeyCredential.parseCreationOptionsFromJSON(begun.public_key as unknown as PublicKeyCredentialCreationOptionsJSON);
  const credential = await browser(navigator.credentials.create({ publicKey: options }));
  return ok(api.POST("/v1/me/passkeys", { body: { ceremony: begun.ceremony, name, credential: credential.toJSON() } }));
}

/** Signs in with a passkey the browser (or a phone or password manager it reaches) holds,
 * naming the new token `device`; answers the new token's secret. */
export async function signInWithPasskey(device: string): Promise<string> {
  const begun = await ok(api.POST("/v1/accounts/passkey-challenges"));
  const options = PublicKeyCredential.parseRequestOptionsFromJSON(begun.public_key as unknown as PublicKeyCredentialRequestOptionsJSON);
  const credential = await browser(navigator.credentials.get({ publicKey: options }));
  try {
    const signed = await ok(api.POST("/v1/accounts/passkey-sign-in", { body: { ceremony: begun.ceremony, token_name: device, credential: credential.toJSON() } }));
    return signed.token.secret;
  } catch (error) {
    // The server says no more than "no" (a removed passkey, say), on purpose: so does the page.
    if (error instanceof ApiError && error.status === 401) throw new Error("That passkey did not sign you in: it may have been removed from its account");
    throw error;
  }
}

/** The browser's answer to a ceremony, with its refusals said in words: the DOMException's
 * own messages are written for developers. */
async function browser(asked: Promise<Credential | null>): Promise<PublicKeyCredential> {
  try {
    const credential = await asked;
    if (credential instanceof PublicKeyCredential) return credential;
  } catch (error) {
    if (error instanceof DOMException && error.name === "InvalidStateError") throw new Error("This device already holds a passkey for this account");
    if (error instanceof DOMException && error.name === "NotAllowedError") throw new Error("No passkey was used: the browser’s request was cancelled or timed out");
    throw error;
  }
  throw new Error("The browser gave no passkey");
}
