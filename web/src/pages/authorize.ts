/** `/play/authorize`: an app asks to use the player's account (OAuth 2.0, code with PKCE). The
 * page shows which app, where it will send the player back, which account and what the app
 * could do, and asks: Allow sends the player back with a code, Deny without one. The query
 * string is the app's request, kept as it came: the server checks it, and the page passes it
 * on field for field. */

import { ApiError, api, ok, tokenRefused } from "../api";
import { h, replace, type Child } from "../h";
import { approve, checkRequest, ordered, scopeWords, type AuthorizeRequest } from "../oauth";
import { session } from "../session";
import { errorBox, frame } from "../ui";

/** Where the problem says to send the player back to the app, if it says so and it is a web
 * address: without it the page sends the player nowhere. */
function backTo(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  const target = error.problem.redirect_to;
  if (typeof target !== "string") return null;
  try {
    const url = new URL(target);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** The problem's own words (`detail`), as the server wrote them but for its code quotes: they
 * say what is wrong with the app's request, for whoever made the app as much as for the
 * player. */
function problemBox(error: unknown): HTMLElement {
  if (error instanceof ApiError && typeof error.problem.detail === "string" && error.problem.detail) {
    return h("p", { class: "error", role: "alert" }, error.problem.detail.replace(/`/g, ""));
  }
  return errorBox(error);
}

/** A level-one heading the page moves focus to once it has something to say, so a screen
 * reader starts there. */
function heading(...text: Child[]): HTMLHeadingElement {
  return h("h1", { id: "consent-title", tabindex: -1 }, ...text);
}

export async function authorizePage(root: HTMLElement, _: Record<string, string>, signal: AbortSignal): Promise<void> {
  const query = location.search;
  const here = location.pathname + location.search;
  const main = frame(root, "Allow an app", h("h1", null, "Allow an app"), h("p", { role: "status" }, "Reading the app’s request…"));

  let request: AuthorizeRequest;
  try {
    request = await checkRequest(query);
  } catch (error) {
    if (signal.aborted) return;
    refused(main, error);
    return;
  }
  let name: string | null = null;
  if (session.token()) {
    try {
      name = (await ok(api.GET("/v1/me"))).account.name;
    } catch (error) {
      if (signal.aborted) return;
      // Only the server saying the token is unknown or revoked signs this device out; then
      // the page asks to sign in again, as for a device never signed in.
      if (!tokenRefused(error)) {
        const title = heading("Allow an app");
        frame(root, "Allow an app", title, errorBox(error));
        title.focus();
        return;
      }
      session.signOut();
    }
  }
  if (signal.aborted) return;
  // A fresh frame: its header's links follow whether this device is signed in.
  consent(frame(root, `Allow ${request.client_id}?`), request, name, here);
}

/** The app's request could not be read: the server's words, and the way back to the app only
 * where the server gives one. */
function refused(main: HTMLElement, error: unknown): void {
  const back = error instanceof ApiError && error.status === 400 ? backTo(error) : null;
  const title = heading(error instanceof ApiError && error.status === 400 ? "This app’s request can’t be answered" : "Allow an app");
  main.replaceChildren(
    h(
      "section",
      { class: "card-panel consent", "aria-labelledby": "consent-title" },
      title,
      problemBox(error),
      back
        ? h("p", null, h("a", { href: back, class: "button", rel: "noreferrer" }, "Back to the app"))
        : error instanceof ApiError && error.status === 400
          ? h("p", { class: "quiet" }, "Nothing was shared with the app, and this page cannot send you back to it: you may close it.")
          : null,
    ),
  );
  title.focus();
}

/** The question itself: the app, where it sends the player back, the account, what the app
 * could do, and Allow and Deny (or, signed out, the ways to sign in first). */
function consent(main: HTMLElement, request: AuthorizeRequest, name: string | null, here: string): void {
  const status = h("div", { "aria-live": "polite" });
  const allow = h("button", { type: "button", class: "allow" }, "Allow");
  const deny = h("button", { type: "button", class: "secondary deny" }, "Deny");
  const choose = (on: boolean) => {
    allow.disabled = !on;
    deny.disabled = !on;
  };
  allow.addEventListener("click", () => {
    choose(false);
    status.replaceChildren(h("p", { role: "status" }, `Letting ${request.client_id} in…`));
    approve(new URLSearchParams(location.search)).then(
      (granted) => location.assign(granted.redirect_to),
      (error: unknown) => {
        const back = backTo(error);
        replace(status, error instanceof ApiError && error.status === 400 ? problemBox(error) : errorBox(error), back ? h("p", null, h("a", { href: back, class: "button", rel: "noreferrer" }, "Back to the app")) : null);
        choose(true);
      },
    );
  });
  deny.addEventListener("click", () => {
    choose(false);
    location.assign(request.deny_to);
  });
  const next = encodeURIComponent(here);
  const title = heading("Let ", h("strong", { class: "app-name" }, request.client_id), " use your Parlour account?");
  main.append(
    h(
      "section",
      { class: "card-panel consent", "aria-labelledby": "consent-title" },
      title,
      h(
        "dl",
        { class: "consent-facts" },
        h("dt", null, "App"),
        h("dd", { "data-app": request.client_id }, request.client_id),
        h("dt", null, "Sends you back to"),
        h("dd", { "data-origin": request.redirect_origin }, request.redirect_origin),
        h("dt", null, "Account"),
        h("dd", { "data-account": name ?? "" }, name ?? "not signed in on this device"),
      ),
      h("p", { class: "quiet" }, `The app chose the name “${request.client_id}” itself: Parlour does not vouch for it. Whichever you choose, Parlour will send you back to ${request.redirect_origin}.`),
      h("h2", { id: "consent-scopes" }, name ? "It will be able to" : "It asks to be able to"),
      h("ul", { class: "scopes", "aria-labelledby": "consent-scopes" }, ordered(request.scopes).map((scope) => h("li", { "data-scope": scope }, scopeWords(scope)))),
      h("p", { class: "quiet" }, "It may do only what is listed here. You can remove it at any time on your Account page, which signs it out."),
      name
        ? h("div", { class: "consent-actions" }, allow, deny)
        : [
            h("p", null, "Sign in to Parlour on this device to answer: you come back here afterwards."),
            h(
              "div",
              { class: "consent-actions" },
              h("a", { href: `/play/sign-in?next=${next}`, "data-link": true, class: "button" }, "Sign in"),
              h("a", { href: `/play/welcome?next=${next}`, "data-link": true, class: "button secondary" }, "Join Parlour"),
              deny,
            ),
          ],
      status,
    ),
  );
  title.focus();
}
