/** The lobby: host a game of any of the five, saying how each seat is filled (me, an
 * invitation link, anyone, a bot), with its options and clock, and whether to list it among
 * the open tables; then copy each seat's link. */

import { keepInvitationLink } from "../invitations";
import { api, ok, type Schemas } from "../api";
import { h, replace } from "../h";
import { navigate } from "../router";
import { session } from "../session";
import { busy, copyField, frame, gameName, when } from "../ui";

type SeatPlan = Schemas["SeatPlan"];
type Entry = Schemas["CatalogEntry"];

/** The seat kinds a host chooses from, as the select shows them. */
const KINDS: [string, string][] = [
  ["invitation", "Invite by link"],
  ["anyone", "Anyone who joins"],
  ["bot:steady", "Bot (steady)"],
  ["bot:expert", "Bot (expert)"],
  ["bot:random", "Bot (random)"],
];

function plan(kind: string): SeatPlan {
  if (kind === "me") return { kind: "me" };
  if (kind === "anyone") return { kind: "anyone" };
  if (kind.startsWith("bot:")) return { kind: "bot", level: kind.slice(4) as Schemas["BotLevel"] };
  return { kind: "invitation" };
}

/** Each game's options, as form controls, and how to read them back. */
function optionControls(game: string): { controls: HTMLElement[]; read: () => Record<string, unknown> } {
  if (game === "british-birds") {
    // Rule 10's series is a match (below), not an option of one game.
    const quiet = h("input", { id: "quiet-rounds", type: "number", min: 1, max: 100, placeholder: "default" });
    return {
      controls: [h("label", { for: "quiet-rounds" }, "End after this many quiet rounds"), quiet],
      read: () => (quiet.value ? { quiet_rounds: Number(quiet.value) } : {}),
    };
  }
  if (game === "history-of-england") {
    const series = h("select", { id: "series" }, [1, 2, 3].map((n) => h("option", { value: n }, `Series ${n}`)));
    return { controls: [h("label", { for: "series" }, "Series"), series], read: () => ({ series: Number(series.value) }) };
  }
  if (game === "googly") {
    const variant = h(
      "select",
      { id: "variant" },
      h("option", { value: "" }, "By the number of players"),
      h("option", { value: "two_player" }, "Two-player"),
      h("option", { value: "three_player" }, "Three-player"),
      h("option", { value: "team" }, "Team game"),
      h("option", { value: "patience" }, "Patience"),
    );
    return { controls: [h("label", { for: "variant" }, "Variant"), variant], read: () => (variant.value ? { variant: variant.value } : {}) };
  }
  return { controls: [], read: () => ({}) };
}

function clockControls(): { controls: HTMLElement[]; read: () => Schemas["NewClock"] | null } {
  const control = h(
    "select",
    { id: "clock" },
    h("option", { value: "none" }, "No clock"),
    h("option", { value: "correspondence" }, "Days per move"),
    h("option", { value: "bank" }, "A bank of hours"),
  );
  // The days a correspondence clock may give (the domain's CORRESPONDENCE_DAYS; the API
  // refuses any other).
  const days = h(
    "select",
    { id: "clock-days" },
    [1, 2, 3, 5, 7, 10, 14].map((n) => h("option", { value: String(n), selected: n === 3 }, n === 1 ? "1 day" : `${n} days`)),
  );
  const initial = h("input", { id: "clock-initial", type: "number", min: 1, value: 72 });
  const increment = h("input", { id: "clock-increment", type: "number", min: 0, value: 24 });
  const max = h("input", { id: "clock-max", type: "number", min: 1, value: 168 });
  const onTimeout = h(
    "select",
    { id: "on-timeout" },
    h("option", { value: "default_move" }, "Their default move is played"),
    h("option", { value: "bot" }, "A bot takes the seat"),
    h("option", { value: "forfeit" }, "They forfeit the game"),
  );
  const details = h("div", { class: "clock-details", hidden: true });
  const sync = () => {
    details.hidden = control.value === "none";
    replace(
      details,
      control.value === "correspondence" ? [h("label", { for: "clock-days" }, "Days for each move"), days] : null,
      control.value === "bank"
        ? [h("label", { for: "clock-initial" }, "Hours to start with"), initial, h("label", { for: "clock-increment" }, "Hours added after each move"), increment, h("label", { for: "clock-max" }, "Most hours in the bank"), max]
        : null,
      h("label", { for: "on-timeout" }, "When someone runs out of time"),
      onTimeout,
    );
  };
  control.addEventListener("change", sync);
  sync();
  return {
    controls: [h("label", { for: "clock" }, "Clock"), control, details],
    read: () => {
      if (control.value === "none") return null;
      const plan: Schemas["TimeControlPlan"] =
        control.value === "bank"
          ? { kind: "bank", initial_hours: Number(initial.value), increment_hours: Number(increment.value), max_hours: Number(max.value) }
          : { kind: "correspondence", days: Number(days.value) };
      return { control: plan, on_timeout: onTimeout.value as Schemas["OnTimeout"] };
    },
  };
}

/** How long a listed table stays among the open tables (the API takes 1 to 168 hours). */
const LISTING_HOURS: [number, string][] = [
  [1, "1 hour"],
  [6, "6 hours"],
  [24, "a day"],
  [72, "3 days"],
  [168, "a week"],
];

/** Whether to list the table among the open tables, and for how long. A listed table needs a
 * seat open to anyone, and only a single game is listed (not a match): otherwise the box is
 * off, and a hint says why. */
function listingControls(): { controls: HTMLElement[]; read: () => Schemas["NewListing"] | null; sync: (anyone: boolean, match: boolean) => void } {
  const box = h("input", { id: "listing", type: "checkbox", "aria-describedby": "listing-hint" });
  const hours = h("select", { id: "listing-hours" }, LISTING_HOURS.map(([n, label]) => h("option", { value: String(n), selected: n === 24 }, label)));
  const details = h("div", { class: "listing-details", hidden: true }, h("label", { for: "listing-hours" }, "Listed for"), hours);
  const hint = h("p", { id: "listing-hint", class: "quiet hint" });
  const show = () => (details.hidden = !box.checked || box.disabled);
  box.addEventListener("change", show);
  return {
    controls: [h("label", { class: "check" }, box, " List this table so anyone can find it and join"), hint, details],
    sync: (anyone, match) => {
      box.disabled = !anyone || match;
      if (box.disabled) box.checked = false;
      hint.textContent = match
        ? "Only a single game can be listed, not a match."
        : anyone
          ? "It is shown under “Open tables” on everyone’s games page until a player takes the seat."
          : "To list it, make at least one seat “Anyone who joins”.";
      show();
    },
    read: () => (box.checked && !box.disabled ? { hours: Number(hours.value) } : null),
  };
}

/** Whether to play one game or a match of deals to a target, and the target. */
function matchControls(): { controls: HTMLElement[]; box: HTMLInputElement; read: () => Schemas["MatchTarget"] | null | undefined; sync: (game: string) => void } {
  const asMatch = h("input", { id: "as-match", type: "checkbox" });
  const target = h("input", { id: "match-target", type: "number", min: 1, placeholder: "the rules' own" });
  const label = h("label", { for: "match-target" }, "Points to play to");
  const details = h("div", { hidden: true }, label, target);
  let googly = false;
  asMatch.addEventListener("change", () => (details.hidden = !asMatch.checked));
  return {
    controls: [h("label", { class: "check" }, asMatch, " Play a match: deal after deal until someone reaches the target"), details],
    box: asMatch,
    sync: (game) => {
      googly = game === "googly";
      label.textContent = googly ? "Matches in the series" : "Points to play to";
      target.max = googly ? "25" : "1000";
    },
    read: () => {
      if (!asMatch.checked) return undefined;
      if (!target.value) return null;
      return googly ? { kind: "deals", deals: Number(target.value) } : { kind: "points", points: Number(target.value) };
    },
  };
}

export async function newGame(root: HTMLElement): Promise<void> {
  if (!session.token()) {
    navigate("/play/welcome?next=/play/new", true);
    return;
  }
  const catalog = await ok(api.GET("/v1/catalog"));
  const games = catalog.games as Entry[];
  const status = h("div", { "aria-live": "polite" });
  const which = h("select", { id: "game" }, games.map((game) => h("option", { value: game.id }, gameName(game.id))));
  const players = h("select", { id: "players" });
  const seats = h("fieldset", { class: "seats" });
  const options = h("div");
  const clock = clockControls();
  const match = matchControls();
  const listing = listingControls();
  let readOptions = () => ({}) as Record<string, unknown>;
  const seatKinds: HTMLSelectElement[] = [];
  const syncListing = () => listing.sync(seatKinds.some((select) => select.value === "anyone"), match.box.checked);
  match.box.addEventListener("change", syncListing);

  const drawSeats = () => {
    const count = Number(players.value);
    while (seatKinds.length < count) {
      const index = seatKinds.length;
      seatKinds.push(
        h(
          "select",
          { id: `seat-${index}`, "aria-label": `Seat ${index + 1}` },
          index === 0 ? h("option", { value: "me" }, "Me") : null,
          KINDS.map(([value, label]) => h("option", { value }, label)),
        ),
      );
      seatKinds[index]?.addEventListener("change", syncListing);
    }
    seatKinds.length = count;
    replace(seats, h("legend", null, "Seats"), seatKinds.map((select, index) => h("div", { class: "seat-plan" }, h("label", { for: `seat-${index}` }, `Seat ${index + 1}`), select)));
    syncListing();
  };
  const drawGame = () => {
    const entry = games.find((game) => game.id === which.value);
    if (!entry) return;
    const chosen = Number(players.value) || Math.max(entry.min_players, 2);
    replace(players, Array.from({ length: entry.max_players - entry.min_players + 1 }, (_, i) => entry.min_players + i).map((n) => h("option", { value: n }, String(n))));
    players.value = String(Math.min(Math.max(chosen, entry.min_players), entry.max_players));
    const controls = optionControls(entry.id);
    readOptions = controls.read;
    match.sync(entry.id);
    replace(options, controls.controls, h("p", { class: "quiet" }, entry.summary));
    drawSeats();
  };
  which.addEventListener("change", drawGame);
  players.addEventListener("change", drawSeats);
  drawGame();

  const submit = h("button", { type: "submit" }, "Create the game");
  const result = h("section", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "card-panel" },
    h("h1", null, "New game"),
    h("label", { for: "game" }, "Game"),
    which,
    h("label", { for: "players" }, "Players"),
    players,
    seats,
    options,
    clock.controls,
    match.controls,
    listing.controls,
    submit,
    status,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(submit, status, async () => {
      const body = { game: which.value, seats: seatKinds.map((select) => plan(select.value)), options: readOptions(), clock: clock.read() };
      const target = match.read();
      let matchId: string | null = null;
      let hosted: Schemas["HostedGame"];
      if (target === undefined) {
        const listed = listing.read();
        hosted = await ok(api.POST("/v1/me/games", { body: { ...body, ...(listed ? { listing: listed } : {}) } }));
      } else {
        const created = await ok(api.POST("/v1/matches", { body: { ...body, ...(target ? { target } : {}) } }));
        if (!created.hosted) throw new Error("the match was created without its first deal");
        matchId = created.id;
        hosted = created.hosted;
      }
      const links = hosted.seats.filter((seat) => seat.invitation);
      for (const seat of links) keepInvitationLink(hosted.id, seat.seat, new URL(seat.invitation?.link ?? "", location.origin).href);
      replace(
        result,
        h("h2", null, "Invite your friends"),
        hosted.listed_until ? h("p", { class: "listed" }, `The table is listed until ${when(hosted.listed_until)}: anyone may find it under “Open tables” and join.`) : null,
        links.length > 0
          ? links.map((seat) => copyField(`Seat ${seat.seat + 1}`, new URL(seat.invitation?.link ?? "", location.origin).href))
          : h("p", null, "No seat needs an invitation."),
        h("p", null, h("a", { href: `/play/games/${hosted.id}`, "data-link": true, class: "button" }, "Go to the table")),
        matchId ? h("p", null, h("a", { href: `/play/matches/${matchId}`, "data-link": true, id: "match-page" }, "The match's standings")) : null,
      );
      form.replaceWith(result);
    });
  });
  frame(root, "New game", form);
}
