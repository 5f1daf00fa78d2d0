/** The account: its devices (tokens) with revoke, a one-time code to sign in another device,
 * notifications on this device, vacation, and signing out. */

import { api, ok } from "../api";
import { h, replace } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { forgetPush, pushState, turnOff, turnOn, type PushState } from "../push";
import { busy, copyField, errorBox, frame, when } from "../ui";

export async function accountPage(root: HTMLElement): Promise<void> {
  if (!session.token()) {
    navigate("/play/welcome", true);
    return;
  }
  const main = frame(root, "Account", h("h1", null, "Account"));
  const devices = h("section", { "aria-labelledby": "devices" });
  const told = h("section", { "aria-labelledby": "notifications" });
  const away = h("section", { "aria-labelledby": "vacation" });
  const status = h("div", { "aria-live": "polite" });
  main.append(status, devices, told, away);

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
          return h("li", { "data-token": token.id }, h("strong", null, token.name), token.current ? " (this device)" : "", h("span", { class: "quiet" }, ` since ${when(token.created_at)}`), " ", revoke);
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
    await Promise.all([showDevices(), showNotifications(), showVacation()]);
  } catch (error) {
    status.append(errorBox(error));
  }
}
