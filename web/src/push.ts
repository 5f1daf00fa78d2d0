/** Notifications on this device by Web Push: the service worker (sw/sw.ts, at /play/sw.js)
 * shows what the server pushes even when no Parlour tab is open. The browser asks for
 * permission only when the player turns them on; turning them off ends the subscription on
 * both sides. Signing out of a device ends it on the server too (its token's subscriptions go
 * with the token). */

import { api, ok } from "./api";

/** Where this device stands: push missing from the browser, blocked by the player, or on/off. */
export type PushState = "unsupported" | "blocked" | "off" | "on";

const WORKER = "/play/sw.js";

export function pushSupported(): boolean {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
}

async function subscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration(WORKER);
  return (await registration?.pushManager.getSubscription()) ?? null;
}

const same = (a: string, b: string) => new URL(a).href === new URL(b).href;

/** The server's subscriptions for this browser's endpoint (normally one). */
async function theServers(endpoint: string) {
  const list = await ok(api.GET("/v1/me/push-subscriptions"));
  return list.subscriptions.filter((kept) => same(kept.endpoint, endpoint));
}

export async function pushState(): Promise<PushState> {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  const mine = await subscription();
  if (!mine || Notification.permission !== "granted") return "off";
  return (await theServers(mine.endpoint)).some((kept) => kept.enabled) ? "on" : "off";
}

function bytes(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) out[i] = text.charCodeAt(i);
  return out;
}

function equal(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** The registration once its worker is active: a push subscription needs an active worker.
 * (`navigator.serviceWorker.ready` would not do: it waits for a worker whose scope holds this
 * page, and `/play` itself is outside the worker's scope `/play/`.) */
async function activated(registration: ServiceWorkerRegistration): Promise<ServiceWorkerRegistration> {
  if (registration.active) return registration;
  const coming = registration.installing ?? registration.waiting;
  if (coming) {
    await new Promise<void>((resolve, reject) => {
      coming.addEventListener("statechange", () => {
        if (coming.state === "activated") resolve();
        else if (coming.state === "redundant") reject(new Error("The notifications’ service worker could not be installed."));
      });
    });
  }
  return registration;
}

/** Asks the browser for permission (the player has just asked for notifications), subscribes
 * with the server's key and gives the subscription to the server. */
export async function turnOn(): Promise<void> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications are blocked for this site: allow them in the browser’s site settings, then try again.");
  const registration = await activated(await navigator.serviceWorker.register(WORKER));
  const key = bytes((await ok(api.GET("/v1/push/key"))).application_server_key);
  let mine = await registration.pushManager.getSubscription();
  // A subscription made with another key (the server's signing key was replaced) cannot be
  // pushed to: start again.
  if (mine && !equal(mine.options.applicationServerKey, key)) {
    await mine.unsubscribe();
    mine = null;
  }
  mine ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const json = mine.toJSON();
  const keys = json.keys ?? {};
  if (!json.endpoint || !keys.p256dh || !keys.auth) throw new Error("The browser gave a subscription without its keys.");
  await ok(api.POST("/v1/me/push-subscriptions", { body: { endpoint: json.endpoint, expirationTime: json.expirationTime ?? null, keys: { p256dh: keys.p256dh, auth: keys.auth } } }));
}

/** Ends this device's subscription: the server forgets it, then the browser. */
export async function turnOff(): Promise<void> {
  const mine = await subscription();
  if (!mine) return;
  for (const kept of await theServers(mine.endpoint)) {
    await ok(api.DELETE("/v1/me/push-subscriptions/{id}", { params: { path: { id: kept.id } } }));
  }
  await mine.unsubscribe();
}

/** Whether this browser holds a push subscription: then its service worker shows each notice,
 * and an open page need not show it again. */
export async function pushedHere(): Promise<boolean> {
  if (!pushSupported() || Notification.permission !== "granted") return false;
  try {
    return (await subscription()) !== null;
  } catch {
    return false;
  }
}

/** On signing out: the browser's subscription ends too (the server's ends with the token). */
export async function forgetPush(): Promise<void> {
  if (!pushSupported()) return;
  try {
    await (await subscription())?.unsubscribe();
  } catch {
    // Nothing more can be done here; the server no longer pushes to a revoked device.
  }
}

/** A notice's click in the service worker asks an open tab to go to its table. */
export function followPushClicks(go: (url: string) => void): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
    const url = (event.data as { open?: unknown } | null)?.open;
    if (typeof url === "string" && /^\/play(\/|$)/.test(url)) go(url);
  });
  navigator.serviceWorker.startMessages();
}
