/** The public API, typed from openapi/openapi.json (src/parlour.d.ts is generated from it):
 * the web client uses nothing else. */

import createClient from "openapi-fetch";
import type { components, paths } from "./parlour";
import { session } from "./session";

export type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type GameEvent = Schemas["EventPage"]["events"][number];
export type CatalogGame = Schemas["CatalogGame"];
export type InboxGame = Schemas["InboxGame"];
export type Problem = Schemas["Problem"];

/** A refusal from the server, with its problem+json body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem> & { [key: string]: unknown },
  ) {
    super(String(problem.detail ?? problem.title ?? `the server answered ${status}`));
  }
}

export const api = createClient<paths>({ baseUrl: location.origin });

/** How far the server's clock is ahead of this device's, in milliseconds, from the `Date`
 * header of the latest answer: a countdown runs on the server's time, since a deadline is the
 * server's, and a phone's clock may be minutes off. */
let serverAhead = 0;

/** The time now as the server tells it. */
export function serverNow(): number {
  return Date.now() + serverAhead;
}

/** Learns the server's time from an answer's `Date` (whole seconds: its half-second middle is
 * the best guess). */
export function heardFromServer(response: Response): void {
  const date = Date.parse(response.headers.get("date") ?? "");
  if (Number.isFinite(date)) serverAhead = date + 500 - Date.now();
}

api.use({
  onResponse({ response }) {
    heardFromServer(response);
    return response;
  },
  onRequest({ request }) {
    const token = session.token();
    if (token && !request.headers.has("authorization")) {
      request.headers.set("authorization", `Bearer ${token}`);
    }
    return request;
  },
});

/** The answer's data, or an `ApiError` carrying the problem the server sent. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  // A 204 (a revoked token, say) has no body: its data is undefined, and that is success.
  if (!response.ok) {
    const problem = (typeof error === "object" && error !== null ? error : {}) as ApiError["problem"];
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

/** Whether `error` says the stored token is no good: the server answered 401 (unknown or
 * revoked). Nothing else is: a 503 during a database blip, a refused connection or a 429 says
 * nothing about the token, and signing out on one would lose a device's only key to its
 * account. */
export function tokenRefused(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/** Calls `request` until it answers, retrying with back-off (1 s doubling to 30 s) while the
 * server cannot be reached or fails, and telling `waiting` each time; a refusal the server
 * means (any 4xx but 408 and 429) is thrown at once. */
export async function persistently<T>(
  request: () => Promise<T>,
  waiting: (retryInSeconds: number, error: unknown) => void,
  signal: AbortSignal,
): Promise<T> {
  let pause = 1000;
  for (;;) {
    try {
      return await request();
    } catch (error) {
      const meant = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
      if (meant || signal.aborted) throw error;
      waiting(pause / 1000, error);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) throw error;
      pause = Math.min(pause * 2, 30000);
    }
  }
}

const catalogue = new Map<string, Promise<CatalogGame>>();

/** One game's catalogue entry with its cards, fetched once per page load. */
export function catalogGame(game: string): Promise<CatalogGame> {
  let entry = catalogue.get(game);
  if (!entry) {
    entry = ok(api.GET("/v1/catalog/{game}", { params: { path: { game } } }));
    catalogue.set(game, entry);
  }
  return entry;
}

/** Reads a server-sent-events stream with `fetch` (an `EventSource` cannot send the
 * Authorization header), reconnecting with `Last-Event-ID` until `signal` aborts. */
export async function follow(
  path: string,
  onEvent: (event: string, data: string) => void,
  signal: AbortSignal,
  withToken = true,
): Promise<void> {
  let lastId: string | null = null;
  let pause = 500;
  while (!signal.aborted) {
    try {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      const token = session.token();
      if (withToken && token) headers.authorization = `Bearer ${token}`;
      if (lastId) headers["last-event-id"] = lastId;
      const response = await fetch(path, { headers, signal });
      // A token the server no longer knows (revoked on another device) gets nothing more
      // by asking again.
      if (response.status === 401) return;
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      heardFromServer(response);
      pause = 500;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
            else if (line.startsWith("id:")) lastId = line.slice(3).trim();
          }
          if (data.length > 0) onEvent(event, data.join("\n"));
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 15000);
  }
}
