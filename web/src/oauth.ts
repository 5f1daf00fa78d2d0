/** OAuth 2.0 for apps, the player's side: what an app asks to do (its scopes) in plain words,
 * and the calls the consent page and the account page make.
 *
 * These routes (`/v1/oauth/authorize`, `/v1/oauth/authorizations`, `/v1/me/apps`) are called
 * with `fetch` and typed here by hand, as the OAuth contract describes them, rather than
 * through the client generated from openapi/openapi.json; the problems they refuse with are
 * thrown as the same `ApiError` every other call throws. */

import { ApiError, heardFromServer } from "./api";
import { session } from "./session";

/** Every scope a token may hold, in the order the pages list them. */
export const SCOPES = ["games:read", "games:play", "games:host", "webhooks:manage", "account:manage"] as const;

/** What each scope lets an app do, as the consent page and the account page say it. */
const WORDS: Record<string, string> = {
  "games:read": "See your games, your inbox and your notices",
  "games:play": "Play your moves, resign, take seats offered to you, and hand a seat to a bot and back",
  "games:host": "Host tables, offer and withdraw seats, abort games and start matches",
  "webhooks:manage": "Manage your webhooks and see what they delivered",
  "account:manage":
    "Manage your account: its devices, vacation, passkeys, email addresses, notifications, sign-in codes and apps, and let other apps in",
};

/** Each scope in a word or two, for a device's row on the account page. */
const SHORT: Record<string, string> = {
  "games:read": "see games",
  "games:play": "play",
  "games:host": "host",
  "webhooks:manage": "webhooks",
  "account:manage": "manage the account",
};

/** A scope in plain words (a scope this page does not know is shown as it is). */
export function scopeWords(scope: string): string {
  return WORDS[scope] ?? scope;
}

/** A scope in a word or two. */
export function scopeShort(scope: string): string {
  return SHORT[scope] ?? scope;
}

/** Scopes in the pages' order, each once (unknown ones last, as they came). */
export function ordered(scopes: readonly string[]): string[] {
  const known = SCOPES.filter((scope) => scopes.includes(scope));
  const other = scopes.filter((scope, index) => !(SCOPES as readonly string[]).includes(scope) && scopes.indexOf(scope) === index);
  return [...known, ...other];
}

/** Whether `scopes` holds every scope there is (a token that may do anything). */
export function allScopes(scopes: readonly string[]): boolean {
  return SCOPES.every((scope) => scopes.includes(scope));
}

/** `GET /v1/oauth/authorize`: the app's request, checked by the server. */
export interface AuthorizeRequest {
  client_id: string;
  redirect_uri: string;
  redirect_origin: string;
  scopes: string[];
  state?: string | null;
  deny_to: string;
}

/** `POST /v1/oauth/authorizations`: the code, and where it goes. */
export interface Authorization {
  code: string;
  redirect_to: string;
  expires_at: string;
}

/** An app the account let in (`GET /v1/me/apps`). */
export interface App {
  client_id: string;
  scopes: string[];
  granted_at: string;
  tokens: number;
}

/** What a token of `GET /v1/me` says of the app that holds it and what it may do, where the
 * server says so. */
export function tokenGrant(token: object): { app: string | null; scopes: string[] | null } {
  const said = token as { app?: unknown; scopes?: unknown };
  return {
    app: typeof said.app === "string" && said.app ? said.app : null,
    scopes: Array.isArray(said.scopes) ? said.scopes.filter((scope): scope is string => typeof scope === "string") : null,
  };
}

/** Calls the API with JSON in and out; a refusal is thrown as an `ApiError` with its problem. */
async function call<T>(method: string, path: string, options: { body?: unknown; withToken?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json, application/problem+json" };
  const token = session.token();
  if (options.withToken !== false && token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  heardFromServer(response);
  const text = await response.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!response.ok) {
    const problem = (typeof data === "object" && data !== null ? data : {}) as ApiError["problem"];
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

/** The app's request as the server reads it: the query string of `/play/authorize`, passed
 * on unchanged. It needs no token (nothing of the account is in it). */
export function checkRequest(query: string): Promise<AuthorizeRequest> {
  return call<AuthorizeRequest>("GET", `/v1/oauth/authorize${query}`, { withToken: false });
}

/** Lets the app in: the server makes a code for it and says where to send the player. The
 * request is the one the page was opened with, field for field. */
export function approve(query: URLSearchParams): Promise<Authorization> {
  const body: Record<string, string> = {};
  for (const field of ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"]) {
    const value = query.get(field);
    if (value !== null) body[field] = value;
  }
  return call<Authorization>("POST", "/v1/oauth/authorizations", { body });
}

/** The apps the account let in: every page of them, following `next`. */
export async function apps(): Promise<App[]> {
  const all: App[] = [];
  let cursor: string | null = null;
  do {
    const path: string = cursor === null ? "/v1/me/apps" : `/v1/me/apps?cursor=${encodeURIComponent(cursor)}`;
    const page: { apps: App[]; next?: string | null } = await call<{ apps: App[]; next?: string | null }>("GET", path);
    all.push(...page.apps);
    cursor = page.next ?? null;
  } while (cursor !== null);
  return all;
}

/** Signs an app out for good: every token it holds is revoked. */
export async function removeApp(clientId: string): Promise<void> {
  await call<void>("DELETE", `/v1/me/apps/${encodeURIComponent(clientId)}`);
}
