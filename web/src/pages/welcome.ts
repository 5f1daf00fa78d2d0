/** Joining Parlour (an account from a name) and signing in on another device with a code. */

import { api, ok } from "../api";
import { h } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { busy, frame } from "../ui";

/** Where to go after joining: back to the invitation that brought the reader, if any. */
function next(): string {
  const target = new URLSearchParams(location.search).get("next");
  return target && target.startsWith("/play") ? target : "/play";
}

/** A name for this device's token, from what the browser says of itself. */
function deviceName(): string {
  const agent = navigator.userAgent;
  const kind = /Mobile|Android|iPhone/.test(agent) ? "phone" : "browser";
  return `${kind} (${new Date().toISOString().slice(0, 10)})`;
}

export function welcome(root: HTMLElement): void {
  if (session.token()) {
    navigate(next(), true);
    return;
  }
  const status = h("div", { "aria-live": "polite" });
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 64, autocomplete: "nickname" });
  const submit = h("button", { type: "submit" }, "Join");
  const form = h(
    "form",
    { class: "card-panel" },
    h("h1", null, "Play classic British card games"),
    h("p", null, "GIRL, The CAR Game, British Birds, History of England No. 2 and GOOGLY, turn by turn, across days, from any device."),
    h("label", { for: "name" }, "Your name"),
    name,
    submit,
    status,
    h("p", { class: "quiet" }, "Already joined on another device? ", h("a", { href: "/play/sign-in", "data-link": true }, "Sign in with a code"), "."),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, status, async () => {
      const created = await ok(api.POST("/v1/accounts", { body: { name: name.value.trim(), token_name: deviceName() } }));
      session.signIn(created.token.secret);
      navigate(next(), true);
    });
  });
  frame(root, "Join", form);
  name.focus();
}

export function signInPage(root: HTMLElement): void {
  const status = h("div", { "aria-live": "polite" });
  const code = h("input", { id: "code", name: "code", required: true, autocomplete: "one-time-code", spellcheck: "false" });
  const device = h("input", { id: "device", name: "device", required: true, value: deviceName(), maxlength: 64 });
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "card-panel" },
    h("h1", null, "Sign in on this device"),
    h("p", null, "On a device where you are signed in, open Account and choose “Sign in another device”: it shows a one-time code. Type it here."),
    h("label", { for: "code" }, "One-time code"),
    code,
    h("label", { for: "device" }, "Name for this device"),
    device,
    submit,
    status,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, status, async () => {
      const signed = await ok(api.POST("/v1/accounts/sign-in", { body: { code: code.value.trim(), token_name: device.value.trim() } }));
      session.signIn(signed.token.secret);
      navigate(next(), true);
    });
  });
  frame(root, "Sign in", form);
  code.focus();
}
