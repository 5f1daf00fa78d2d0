/** Parlour's service worker, at /play/sw.js: it shows what the server pushes (your move, a
 * reminder, a timeout, a game over) as a system notification while no Parlour tab is open,
 * and a click opens that table. It caches nothing: the page and its assets revalidate on every
 * load, so a new release is never hidden behind an old copy.
 *
 * A push is the server's notice (api/src/dto.rs `PushNotice`): a title, a line, the table to
 * open and a tag that groups one game's notices, so a newer one replaces the older. It holds
 * nothing a player could not read in their own inbox. */

// The lib types `self` as a worker of any kind; this one is a service worker.
const worker = self as unknown as ServiceWorkerGlobalScope;

type Notice = { title: string; body: string; url: string; tag: string; timestamp?: string };

/** What is shown when a push cannot be read (a browser must show something for each). */
const FALLBACK: Notice = { title: "Parlour", body: "Something happened at one of your tables.", url: "/play", tag: "parlour" };

worker.addEventListener("install", () => {
  // A new version takes over at once: it has no cache to keep consistent with the page.
  void worker.skipWaiting();
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(worker.clients.claim());
});

worker.addEventListener("push", (event) => {
  const notice = read(event.data);
  const timestamp = notice.timestamp ? Date.parse(notice.timestamp) : NaN;
  const options: NotificationOptions & { timestamp?: number; renotify?: boolean } = {
    body: notice.body,
    tag: notice.tag,
    // A newer notice of the same game replaces the older one and still alerts.
    renotify: true,
    icon: "/play/assets/icon.svg",
    data: { url: notice.url },
  };
  if (Number.isFinite(timestamp)) options.timestamp = timestamp;
  event.waitUntil(worker.registration.showNotification(notice.title, options));
});

worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = place((event.notification.data as { url?: unknown } | null)?.url);
  event.waitUntil(open(url));
});

/** The push's notice, or the fallback when it is missing or not one. */
function read(data: PushMessageData | null): Notice {
  try {
    const value = data?.json() as Partial<Record<keyof Notice, unknown>> | undefined;
    if (value && typeof value.title === "string" && typeof value.body === "string") {
      return {
        title: value.title,
        body: value.body,
        url: place(value.url),
        tag: typeof value.tag === "string" ? value.tag : FALLBACK.tag,
        timestamp: typeof value.timestamp === "string" ? value.timestamp : undefined,
      };
    }
  } catch {
    // Not JSON: the fallback below.
  }
  return FALLBACK;
}

/** A page of this site's client to open: anything else (another site, an API address) opens
 * the inbox instead, so a notice can never send a player elsewhere. */
function place(url: unknown): string {
  if (typeof url !== "string") return "/play";
  try {
    const target = new URL(url, worker.location.origin);
    if (target.origin === worker.location.origin && /^\/play(\/|$)/.test(target.pathname)) return target.pathname + target.search;
  } catch {
    // Not a URL: the inbox.
  }
  return "/play";
}

/** Brings a Parlour tab to `url`: one already there is focused; another Parlour tab is asked
 * to go there (the page routes without reloading, `src/main.ts`); with none, a new window. */
async function open(url: string): Promise<void> {
  const windows = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
  const path = (client: WindowClient) => new URL(client.url).pathname;
  const there = windows.find((client) => path(client) === new URL(url, worker.location.origin).pathname);
  const ours = there ?? windows.find((client) => /^\/play(\/|$)/.test(path(client)));
  if (ours) {
    if (!there) ours.postMessage({ open: url });
    // Focusing needs the click's user activation; without one it fails and the tab has
    // still moved.
    await ours.focus().catch(() => undefined);
    return;
  }
  await worker.clients.openWindow(url);
}
