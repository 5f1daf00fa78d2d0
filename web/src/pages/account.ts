/** The account: its devices (tokens) with revoke and how each signed in (and, for an app's,
 * which app and what it may do), a one-time code to sign in another device, the apps it let
 * in, its passkeys, notifications on this device, email addresses, what it is told on which
 * channel, vacation, and signing out. */

import { api, ok, type Schemas } from "../api";
import { h, replace } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { forgetPush, pushState, turnOff, turnOn, type PushState } from "../push";
import { addPasskey, noPasskeysHere } from "../passkeys";
import { allScopes, apps as appsLetIn, ordered, removeApp, scopeShort, scopeWords, tokenGrant, type App } from "../oauth";
import { busy, copyField, errorBox, frame, when } from "../ui";

export async function accountPage(root: HTMLElement): Promise<void> {
  if (!session.token()) {
    navigate("/play/welcome", true);
    return;
  }
  const main = frame(root, "Account", h("h1", null, "Account"));
  const devices = h("section", { "aria-labelledby": "devices" });
  const apps = h("section", { "aria-labelledby": "apps" });
  const keys = h("section", { "aria-labelledby": "passkeys" });
  const told = h("section", { "aria-labelledby": "notifications" });
  const mail = h("section", { "aria-labelledby": "email" });
  const choices = h("section", { "aria-labelledby": "told-what" });
  const away = h("section", { "aria-labelledby": "vacation" });
  const status = h("div", { "aria-live": "polite" });
  main.append(status, devices, apps, keys, told, mail, choices, away);

  const showDevices = async () => {
    const me = await ok(api.GET("/v1/me"));
    const code = h("div", { "aria-live": "polite" });
    const ask = h("button", { type: "button" }, "Sign in another device");
    ask.addEventListener("click", () =>
      void busy(ask, code, async () => {
        const issued = await ok(api.POST("/v1/me/sign-in-codes"));
        replace(code, copyField("One-time code", issued.code), h("p", { class: "quiet" }, `Type it on the other device at /play/sign-in before ${when(issued.expires_at)}.`));
      }),
    );
    replace(
      devices,
      h("h2", { id: "devices" }, `${me.account.name}’s devices`),
      h(
        "ul",
        { class: "devices" },
        me.tokens.map((token) => {
          const revoke = h("button", { type: "button", class: "secondary" }, token.current ? "Sign out here" : "Revoke");
          revoke.addEventListener("click", () =>
            void busy(revoke, status, async () => {
              await ok(api.DELETE("/v1/me/tokens/{token_id}", { params: { path: { token_id: token.id } } }));
              if (token.current) {
                await forgetPush();
                session.signOut();
                navigate("/play/welcome");
              } else {
                await showDevices();
              }
            }),
          );
          return h(
            "li",
            { "data-token": token.id },
            h("strong", null, token.name),
            token.current ? " (this device)" : "",
            h("span", { class: "quiet" }, ` since ${when(token.created_at)}${HOW[token.signed_in_with ?? ""] ?? ""}${granted(token)}`),
            " ",
            revoke,
          );
        }),
      ),
      ask,
      code,
    );
  };

  const SAID: Record<PushState, string> = {
    unsupported: "This browser cannot be told of moves while Parlour is closed; an open Parlour tab still tells you.",
    blocked: "Notifications are blocked for this site. Allow them in the browser’s site settings to be told here.",
    off: "This device is not told of your moves while Parlour is closed.",
    on: "This device is told, even with Parlour closed, when it is your move, when time is running out or ran out, when a seat is held for you or taken, and when a game or a match begins or ends.",
  };
  const showNotifications = async () => {
    const state = await pushState();
    const on = h("button", { type: "button" }, "Notify me on this device");
    const off = h("button", { type: "button", class: "secondary" }, "Stop notifying this device");
    on.addEventListener("click", () =>
      void busy(on, status, async () => {
        await turnOn();
        await showNotifications();
      }),
    );
    off.addEventListener("click", () =>
      void busy(off, status, async () => {
        await turnOff();
        await showNotifications();
      }),
    );
    told.dataset.push = state;
    replace(
      told,
      h("h2", { id: "notifications" }, "Notifications"),
      h("p", null, SAID[state]),
      state === "off" ? on : state === "on" ? off : null,
    );
  };

  const showVacation = async () => {
    const vacation = await ok(api.GET("/v1/me/vacation"));
    const days = h("input", { id: "days", type: "number", min: 1, max: Math.max(vacation.days_left, 1), value: Math.min(7, Math.max(vacation.days_left, 1)) });
    const go = h("button", { type: "button" }, "Go on vacation");
    const back = h("button", { type: "button" }, "Come back now");
    go.addEventListener("click", () =>
      void busy(go, status, async () => {
        await ok(api.POST("/v1/me/vacation", { body: { days: Number(days.value) } }));
        await showVacation();
      }),
    );
    back.addEventListener("click", () =>
      void busy(back, status, async () => {
        await ok(api.DELETE("/v1/me/vacation"));
        await showVacation();
      }),
    );
    replace(
      away,
      h("h2", { id: "vacation" }, "Vacation"),
      h("p", null, `${vacation.days_left} of ${vacation.days_per_year} days left this year. While you are away your clocks stop in every game that allows it.`),
      vacation.away_until
        ? [h("p", null, `Away until ${when(vacation.away_until)}.`), back]
        : h("p", null, h("label", { for: "days" }, "Days "), days, " ", go),
    );
  };

  try {
    await Promise.all([showDevices(), showApps(apps, showDevices), showPasskeys(keys), showNotifications(), showEmail(mail), showPreferences(choices), showVacation()]);
  } catch (error) {
    status.append(errorBox(error));
  }
}

/** How a device signed in, as its row says it (a token from before this was kept says nothing). */
const HOW: Record<string, string> = {
  account: " · joined here",
  token: " · signed in with a token",
  code: " · signed in with a code",
  passkey: " · signed in with a passkey",
  email: " · signed in with a mailed link",
  // An app's token says which app instead (`granted`).
  app: "",
};

/** What a device's row says of the app that holds the token, and of what the token may do
 * when that is less than everything: " · app example.app · only see games, play". */
function granted(token: object): string {
  const { app, scopes } = tokenGrant(token);
  const which = app ? ` · app ${app}` : "";
  const what = scopes && !allScopes(scopes) ? ` · only ${scopes.length > 0 ? ordered(scopes).map(scopeShort).join(", ") : "its own sign-in"}` : "";
  return which + what;
}

/** The apps the account let in, each with what it may do, when, and Remove (which signs it
 * out everywhere: `devices` is shown afresh, its tokens gone), with `said` under them. */
async function showApps(section: HTMLElement, devices: () => Promise<void>, said?: string): Promise<void> {
  const heading = h("h2", { id: "apps" }, "Apps");
  const status = h("div", { "aria-live": "polite" }, said ? h("p", { class: "notice" }, said) : null);
  let list: App[];
  try {
    list = await appsLetIn();
  } catch (error) {
    replace(section, heading, errorBox(error));
    return;
  }
  const rows = list.map((app) => {
    const remove = h("button", { type: "button", class: "danger", "aria-label": `Remove ${app.client_id}` }, "Remove");
    remove.addEventListener("click", () =>
      void busy(remove, status, async () => {
        await removeApp(app.client_id);
        await Promise.all([showApps(section, devices, `${app.client_id} is signed out and can no longer use your account.`), devices()]);
      }),
    );
    return h(
      "li",
      { "data-app": app.client_id },
      h("strong", { class: "app-name" }, app.client_id),
      h("span", { class: "quiet" }, `allowed ${when(app.granted_at)}`),
      h("span", { class: "address-actions" }, remove),
      h("ul", { class: "scopes", "aria-label": `What ${app.client_id} may do` }, ordered(app.scopes).map((scope) => h("li", { "data-scope": scope }, scopeWords(scope)))),
    );
  });
  replace(
    section,
    heading,
    h("p", null, "Apps you allowed to use your account. Removing one signs it out at once."),
    rows.length > 0 ? h("ul", { class: "apps" }, rows) : h("p", { class: "quiet" }, "No app may use your account."),
    status,
  );
}

/** The account's passkeys, each with Remove, and the form that adds one on this device, with
 * `said` (what was just done) under them. A passkey is what lets a new device in without an
 * old one at hand, so the section says so before anything else. */
async function showPasskeys(section: HTMLElement, said?: string): Promise<void> {
  const list = await ok(api.GET("/v1/me/passkeys"));
  const status = h("div", { "aria-live": "polite" }, said ? h("p", { class: "notice" }, said) : null);
  const refresh = (done?: string) => showPasskeys(section, done);
  const heading = h("h2", { id: "passkeys" }, "Passkeys");
  const why = h("p", null, "A passkey signs you in on a new device without this one: your phone, laptop or password manager keeps it.");
  if (!list.passkeys_enabled) {
    replace(section, heading, h("p", null, "This server takes no passkeys: sign in other devices with a one-time code."));
    return;
  }
  const rows = list.passkeys.map((passkey) => {
    const remove = h("button", { type: "button", class: "danger" }, "Remove");
    remove.addEventListener("click", () =>
      void busy(remove, status, async () => {
        await ok(api.DELETE("/v1/me/passkeys/{id}", { params: { path: { id: passkey.id } } }));
        await refresh(`“${passkey.name}” signs nothing in any more; the devices it signed in stay signed in.`);
      }),
    );
    const used = passkey.last_used_at ? `last used ${when(passkey.last_used_at)}` : "not used yet";
    return h(
      "li",
      { "data-passkey": passkey.id },
      h("strong", null, passkey.name),
      h("span", { class: "quiet" }, `added ${when(passkey.created_at)} · ${used}`),
      h("span", { class: "address-actions" }, remove),
    );
  });
  const notHere = noPasskeysHere();
  replace(
    section,
    heading,
    why,
    rows.length > 0 ? h("ul", { class: "passkeys" }, rows) : h("p", { class: "quiet" }, "No passkey yet."),
    notHere ? h("p", { class: "quiet" }, notHere) : passkeyForm(status, refresh),
    status,
  );
}

/** The name field and the button that make a passkey on this device (or a phone or password
 * manager the browser offers) and keep it on the account. */
function passkeyForm(status: HTMLElement, refresh: Refresh): HTMLElement {
  const input = h("input", { id: "passkey-name", type: "text", value: "This device", maxlength: 64, required: true, autocomplete: "off" });
  const add = h("button", { type: "submit" }, "Add a passkey");
  const form = h("form", { class: "add-passkey" }, h("label", { for: "passkey-name" }, "Name for this passkey"), h("div", { class: "inline" }, input, add));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(add, status, async () => {
      const added = await addPasskey(input.value.trim());
      await refresh(`Passkey “${added.name}” added: it signs you in on any device that holds it.`);
    });
  });
  return form;
}

type EmailAddress = Schemas["EmailAddress"];
type Preferences = Schemas["NoticePreferences"];
type EventType = Schemas["WebhookEventType"];
/** Shows a section (email, passkeys) afresh, saying `done` under it. */
type Refresh = (done?: string) => Promise<void>;

/** The account's email addresses: each with whether it is confirmed and told, and the way to
 * add one, with `said` (what was just done) under them. A server with no mail server set keeps
 * no addresses, so it only says so. */
async function showEmail(section: HTMLElement, said?: string): Promise<void> {
  const list = await ok(api.GET("/v1/me/email-addresses"));
  const status = h("div", { "aria-live": "polite" }, said ? h("p", { class: "notice" }, said) : null);
  const refresh = (done?: string) => showEmail(section, done);
  if (!list.email_enabled) {
    replace(section, h("h2", { id: "email" }, "Email"), h("p", null, "This server sends no email, so it cannot tell you of your games by email."));
    return;
  }
  replace(
    section,
    h("h2", { id: "email" }, "Email"),
    list.addresses.length > 0
      ? h("ul", { class: "addresses" }, list.addresses.map((address) => addressRow(address, status, refresh)))
      : h("p", { class: "quiet" }, "No address yet: add one to be told of your games by email."),
    addForm(status, refresh),
    status,
  );
}

/** One address: confirmed or not, told or not (with the button to change that), and Remove. */
function addressRow(address: EmailAddress, status: HTMLElement, refresh: Refresh): HTMLElement {
  const path = { params: { path: { id: address.id } } };
  const toggle = h("button", { type: "button", class: "secondary" }, address.notices ? "Stop notices" : "Start notices");
  toggle.addEventListener("click", () =>
    void busy(toggle, status, async () => {
      await ok(api.PATCH("/v1/me/email-addresses/{id}", { ...path, body: { notices: !address.notices } }));
      await refresh();
    }),
  );
  const remove = h("button", { type: "button", class: "danger" }, "Remove");
  remove.addEventListener("click", () =>
    void busy(remove, status, async () => {
      await ok(api.DELETE("/v1/me/email-addresses/{id}", path));
      await refresh();
    }),
  );
  return h(
    "li",
    { "data-address": address.address, "data-verified": String(address.verified), "data-notices": String(address.notices) },
    h("strong", { class: "address" }, address.address),
    h("span", { class: address.verified ? "badge" : "badge reminded" }, address.verified ? "confirmed" : "waiting for you to confirm"),
    h("span", { class: "quiet" }, address.notices ? "notices on" : "notices off"),
    address.stopped_reason ? h("span", { class: "quiet stopped" }, `(${address.stopped_reason})`) : null,
    h("span", { class: "address-actions" }, toggle, remove),
  );
}

/** The field and button that add an address; the server mails it a link to confirm. */
function addForm(status: HTMLElement, refresh: Refresh): HTMLElement {
  const input = h("input", { id: "new-address", type: "email", autocomplete: "email", required: true });
  const add = h("button", { type: "submit" }, "Add address");
  const form = h("form", { class: "add-address" }, h("label", { for: "new-address" }, "Email address"), h("div", { class: "inline" }, input, add));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(add, status, async () => {
      const added = await ok(api.POST("/v1/me/email-addresses", { body: { address: input.value.trim() } }));
      await refresh(`We sent a link to ${added.address}: open it to confirm.`);
    });
  });
  return form;
}

/** The notices a person may choose to be told of, in the words the page uses. */
const NOTICES: [EventType, string][] = [
  ["game.your_turn", "Your move"],
  ["game.deadline_near", "Time running out"],
  ["game.timed_out", "Timed out"],
  ["invitation.received", "A seat held for you"],
  ["invitation.accepted", "A seat of yours taken"],
  ["game.started", "A game begins"],
  ["game.finished", "A game ends"],
  ["match.finished", "A match ends"],
];

const CHANNELS = [
  ["push", "Pushed to your browsers", "pushed"],
  ["email", "By email", "by email"],
] as const;

/** What the account is told on which channel, and when: a grid of checkboxes, quiet hours,
 * the daily digest and the time zone those are reckoned in. Save sends the whole document. */
async function showPreferences(section: HTMLElement): Promise<void> {
  renderPreferences(section, await ok(api.GET("/v1/me/notice-preferences")));
}

/** The form for `kept`, with `said` (the word that it was saved) under its button. */
function renderPreferences(section: HTMLElement, kept: Preferences, said?: string): void {
  const status = h("div", { "aria-live": "polite" }, said ? h("p", { class: "notice" }, said) : null);
  const grid = noticeGrid(kept);
  const quiet = quietHours(kept.quiet_hours ?? null);
  const digest = digestFields(kept);
  const zone = timeZoneField(kept.time_zone);
  const save = h("button", { type: "submit" }, "Save");
  const form = h("form", { class: "preferences" }, grid.element, quiet.element, digest.element, zone.element, save, status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(save, status, async () => {
      const body: Preferences = { ...grid.read(), quiet_hours: quiet.read(), ...digest.read(), time_zone: zone.read() };
      const saved = await ok(api.PUT("/v1/me/notice-preferences", { body }));
      renderPreferences(section, saved, "Saved.");
    });
  });
  replace(
    section,
    h("h2", { id: "told-what" }, "What you are told"),
    h("p", { class: "quiet" }, "Browsers are told only once you turn on notifications there; email goes only to confirmed addresses."),
    form,
  );
}

/** A field of the preferences form: its nodes and how to read what it holds. */
interface Field<T> {
  element: HTMLElement;
  read: () => T;
}

/** The notices by channel, as a table of checkboxes each named by its notice and channel. */
function noticeGrid(kept: Preferences): Field<{ push: EventType[]; email: EventType[] }> {
  const boxes = CHANNELS.map(([channel, , said]) =>
    NOTICES.map(([type, name]) => h("input", { type: "checkbox", "aria-label": `${name}, ${said}`, checked: kept[channel].includes(type), "data-type": type })),
  );
  const table = h(
    "table",
    { class: "notice-grid" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Notice"), CHANNELS.map(([, heading]) => h("th", { scope: "col" }, heading)))),
    h(
      "tbody",
      null,
      NOTICES.map(([, name], row) => h("tr", null, h("th", { scope: "row" }, name), boxes.map((column) => h("td", null, column[row])))),
    ),
  );
  const chosen = (column: HTMLInputElement[]) => NOTICES.filter((_, row) => column[row]?.checked).map(([type]) => type);
  return { element: table, read: () => ({ push: chosen(boxes[0] ?? []), email: chosen(boxes[1] ?? []) }) };
}

/** Quiet hours: a checkbox, and the span it keeps quiet (22:00 to 07:00 until one is chosen). */
function quietHours(kept: Schemas["QuietHours"] | null): Field<Schemas["QuietHours"] | null> {
  const on = h("input", { id: "quiet-on", type: "checkbox", checked: kept !== null });
  const from = h("input", { id: "quiet-from", type: "time", value: kept?.from ?? "22:00", required: true });
  const until = h("input", { id: "quiet-until", type: "time", value: kept?.until ?? "07:00", required: true });
  const follow = () => {
    from.disabled = !on.checked;
    until.disabled = !on.checked;
  };
  on.addEventListener("change", follow);
  follow();
  const element = h(
    "div",
    { class: "quiet-hours" },
    h("label", { class: "check" }, on, " Quiet hours"),
    h("p", { class: "quiet hint" }, "Nothing is pushed or mailed between these times; what happened is told when they end."),
    h(
      "div",
      { class: "inline" },
      // Each label stays with its field when a phone wraps the line.
      h("span", { class: "inline" }, h("label", { for: "quiet-from" }, "From"), from),
      h("span", { class: "inline" }, h("label", { for: "quiet-until" }, "Until"), until),
    ),
  );
  return { element, read: () => (on.checked ? { from: from.value, until: until.value } : null) };
}

/** The daily digest: one email a day, at a chosen hour, instead of one for each notice. */
function digestFields(kept: Preferences): Field<{ email_digest: boolean; digest_hour: number }> {
  const on = h("input", { id: "digest-on", type: "checkbox", checked: kept.email_digest });
  const hours = Array.from({ length: 24 }, (_, hour) => h("option", { value: hour, selected: hour === kept.digest_hour }, `${String(hour).padStart(2, "0")}:00`));
  const hour = h("select", { id: "digest-hour" }, hours);
  const element = h(
    "div",
    { class: "digest" },
    h("label", { class: "check" }, on, " One email a day instead"),
    h("div", { class: "inline" }, h("label", { for: "digest-hour" }, "Sent at"), hour),
  );
  return { element, read: () => ({ email_digest: on.checked, digest_hour: Number(hour.value) }) };
}

/** The time zone quiet hours and the digest are reckoned in, with a button that fills in
 * this device's: the server cannot know it, and starts every account at UTC. */
function timeZoneField(kept: string): Field<string> {
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const input = h("input", { id: "time-zone", type: "text", value: kept, autocomplete: "off", spellcheck: "false", required: true });
  const use = h("button", { type: "button", class: "secondary" }, "Use this device’s time zone");
  use.addEventListener("click", () => (input.value = here));
  const element = h(
    "div",
    { class: "time-zone" },
    h("label", { for: "time-zone" }, "Time zone"),
    h("div", { class: "inline" }, input, here && here !== kept ? use : null),
  );
  return { element, read: () => input.value.trim() };
}
