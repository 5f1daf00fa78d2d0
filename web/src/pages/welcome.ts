/** Joining Parlour (an account from a name) and signing in on another device with a code or
 * a passkey. */

import { api, ok } from "../api";
import { h, replace } from "../h";
import { noPasskeysHere, signInWithPasskey } from "../passkeys";
import { navigate } from "../router";
import { session } from "../session";
import { busy, frame, when } from "../ui";

/** Where to go after joining: back to the invitation (or the app asking to be let in) that
 * brought the reader, if any. */
function next(): string {
  const target = new URLSearchParams(location.search).get("next");
  return target && target.startsWith("/play") ? target : "/play";
}

/** The same way back, for a link to the other way in (joining or signing in). */
function passNext(): string {
  const target = next();
  return target === "/play" ? "" : `?next=${encodeURIComponent(target)}`;
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
    h("p", { class: "quiet" }, "Already joined on another device? ", h("a", { href: `/play/sign-in${passNext()}`, "data-link": true }, "Sign in with a code or a passkey"), "."),
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
  // A sign-in mail's link carries its code in the fragment (never sent to a server): take it,
  // and drop it from the address bar and the history.
  const mailed = new URLSearchParams(location.hash.slice(1)).get("code");
  if (mailed) {
    code.value = mailed;
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  const device = h("input", { id: "device", name: "device", required: true, value: deviceName(), maxlength: 64 });
  const submit = h("button", { type: "submit" }, "Sign in");
  // A button, not a second submit: it needs no code, so the code field's `required` must not
  // stop it.
  const passkey = h("button", { type: "button", class: "secondary" }, "Sign in with a passkey");
  const notHere = noPasskeysHere();
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
    h("p", { class: "or" }, "Or, with no other device at hand, use a passkey you added on the account page: this device, your phone or your password manager may hold it."),
    notHere ? h("p", { class: "quiet" }, notHere) : passkey,
    status,
  );
  passkey.addEventListener("click", () =>
    void busy(passkey, status, async () => {
      if (!device.value.trim()) device.value = deviceName();
      session.signIn(await signInWithPasskey(device.value.trim()));
      navigate(next(), true);
    }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, status, async () => {
      const signed = await ok(api.POST("/v1/accounts/sign-in", { body: { code: code.value.trim(), token_name: device.value.trim() } }));
      session.signIn(signed.token.secret);
      navigate(next(), true);
    });
  });
  // No device and no passkey: a link mailed to an address the account confirmed.
  const address = h("input", { id: "sign-in-address", name: "address", type: "email", required: true, autocomplete: "email", maxlength: 254 });
  const mail = h("button", { type: "submit", class: "secondary" }, "Mail me a sign-in link");
  const mailStatus = h("div", { "aria-live": "polite" });
  const byMail = h(
    "form",
    { class: "card-panel" },
    h("h2", null, "No device and no passkey?"),
    h("p", null, "If you confirmed an email address on your account, Parlour can mail it a sign-in link."),
    h("label", { for: "sign-in-address" }, "Email address"),
    address,
    mail,
    mailStatus,
  );
  byMail.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(mail, mailStatus, async () => {
      const asked = await ok(api.POST("/v1/accounts/email-sign-in", { body: { address: address.value.trim() } }));
      replace(mailStatus, h("p", { role: "status" }, `If an account here has confirmed ${asked.address}, a sign-in link is on its way. It works once, until ${when(asked.expires_at)}.`));
    });
  });
  frame(root, "Sign in", form, byMail);
  if (mailed) device.focus();
  else code.focus();
}
