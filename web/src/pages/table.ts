/** The table: one game as my seat sees it (or a spectator), live from the game's stream, with
 * my legal actions as things to click, the story so far in words, claiming a seat from an
 * invitation link, resigning, and handing my seat to a bot. */

import { api, ApiError, catalogGame, follow, ok, type GameEvent, type GameView, type Schemas } from "../api";
import { invitationLinks, keepInvitationLink } from "../invitations";
import { CardBook, cardView } from "../cards";
import { h, replace, type Child } from "../h";
import { navigate } from "../router";
import { setTitle } from "../notices";
import { session } from "../session";
import { busy, copyField, countdown, errorBox, frame, gameName, when } from "../ui";
import { cardAction, describeMove, isChoose, pickedFor, storyLines, verbFor, type GameModule, type Legal, type Move, type Table } from "../games/kit";
import { howToPlay } from "../games/help";
import { resultsPanel } from "../games/results";
import { moduleFor } from "../games/modules";

async function loadView(id: string): Promise<GameView> {
  return ok(api.GET("/v1/games/{id}", { params: { path: { id } } })) as Promise<GameView>;
}

/** Where the reader came from an invitation: `?seat=N&invitation=CODE`. */
function invitation(): { seat: number; code: string | null } | null {
  const query = new URLSearchParams(location.search);
  const seat = query.get("seat");
  return seat !== null && /^\d+$/.test(seat) ? { seat: Number(seat), code: query.get("invitation") } : null;
}

function claimPanel(view: GameView, id: string): HTMLElement | null {
  const offer = invitation();
  if (!offer || view.status !== "waiting" || view.you) return null;
  const status = h("div", { "aria-live": "polite" });
  if (!session.token()) {
    const next = encodeURIComponent(location.pathname + location.search);
    return h("section", { class: "claim" }, h("h2", null, `You are invited to seat ${offer.seat + 1}`), h("p", null, h("a", { href: `/play/welcome?next=${next}`, "data-link": true, class: "button" }, "Join Parlour to take it"), " or ", h("a", { href: `/play/sign-in?next=${next}`, "data-link": true }, "sign in")));
  }
  const take = h("button", { type: "button" }, `Take seat ${offer.seat + 1}`);
  take.addEventListener("click", () =>
    void busy(take, status, async () => {
      await ok(api.POST("/v1/games/{id}/seats/{seat}/claim", { params: { path: { id, seat: offer.seat } }, body: offer.code ? { code: offer.code } : {} }));
      // A fresh page: the stream opened before the claim follows a spectator's view.
      navigate(`/play/games/${id}`, true);
    }),
  );
  return h("section", { class: "claim" }, h("h2", null, `You are invited to seat ${offer.seat + 1}`), take, status);
}

function seatList(table: Table): HTMLElement {
  const view = table.view;
  const clocks = new Map((view.clock?.seats ?? []).map((seat) => [seat.seat, seat]));
  const seating = new Map((view.seating?.seats ?? []).map((seat) => [seat.seat, seat]));
  return h(
    "ol",
    { class: "seats-list", "aria-label": "Seats" },
    view.seats.map((seat) => {
      const clock = clocks.get(seat.seat);
      const sat = seating.get(seat.seat);
      const toAct = view.to_act.includes(seat.seat);
      const empty = view.status === "waiting" && sat && !sat.holder && !sat.bot;
      return h(
        "li",
        { class: `seat${toAct ? " to-act" : ""}${seat.seat === table.me ? " mine" : ""}`, "data-seat": seat.seat },
        h("strong", null, seat.name || (empty ? "(empty seat)" : `Seat ${seat.seat + 1}`)),
        seat.seat === table.me ? h("span", { class: "badge" }, "you") : null,
        sat?.bot ? h("span", { class: "badge" }, `bot: ${sat.bot}`) : null,
        toAct ? h("span", { class: "badge turn" }, "to play") : null,
        clock?.away_until ? h("span", { class: "quiet" }, `away until ${when(clock.away_until)}`) : null,
        clock?.deadline ? countdown(clock.deadline) : null,
        clock?.deadline && clock.reminded ? h("span", { class: "badge reminded" }, "80 % of the time used") : null,
      );
    }),
  );
}

/** After another player's move, a half-made choice stays as long as it can still be made:
 * a bot laying while I pick my three cards must not undo my picks. */
function keepWhatIsStillLegal(table: Table, legal: Legal[]): void {
  const choosable = new Set(legal.flatMap((action) => Object.values(action).filter(isChoose).flatMap((choice) => choice.from)));
  for (const [key, picked] of table.picked) {
    const kept = picked.filter((item) => choosable.has(item));
    if (kept.length > 0) table.picked.set(key, kept);
    else table.picked.delete(key);
  }
  if (!legal.some((action) => action.seat === table.target)) table.target = null;
  if (!legal.some((action) => action.seat === table.target && action.card === table.targetCard)) table.targetCard = null;
}

/** My cards' section, when I have any to show. */
function mineShown(cards: Child): HTMLElement | null {
  return cards ? h("section", { class: "my-hand", "aria-label": "Your cards" }, cards) : null;
}

/** Every legal action that is not a card to click: plain buttons, two-step asks, and
 * choices of names (a batting order) or of cards to show. */
function actionPanel(table: Table, module: GameModule): HTMLElement | null {
  const standing = new Set(module.standing?.types ?? []);
  const legal = table.legal.filter((action) => !standing.has(action.type));
  if (legal.length === 0) return null;
  const parts: Child[] = [];
  const asks = legal.filter((action) => typeof action.seat === "number" && typeof action.card === "string");
  if (asks.length > 0) {
    const seats = [...new Set(asks.map((action) => action.seat as number))];
    parts.push(
      h(
        "div",
        { class: "ask-seat", role: "group", "aria-label": "Ask whom" },
        h("span", null, "Ask "),
        seats.map((seat) => {
          const button = h("button", { type: "button", class: table.target === seat ? "selected" : "secondary", "aria-pressed": String(table.target === seat), "data-ask-seat": seat, "data-hint": describeMove(module, table, { type: "ask", seat }) }, table.names[seat] ?? `Seat ${seat + 1}`);
          button.addEventListener("click", () => {
            table.target = seat;
            table.targetCard = null;
            table.picked.clear();
            table.redraw();
          });
          return button;
        }),
      ),
    );
    if (table.target !== null) {
      const forSeat = asks.filter((action) => action.seat === table.target);
      parts.push(
        h("p", null, `for which card?`),
        h(
          "div",
          { class: "card-row", role: "group", "aria-label": "Cards to ask for" },
          forSeat.map((action) => {
            const card = action.card as string;
            const show = Object.values(action).find(isChoose);
            return cardView(table.book, card, {
              selected: table.targetCard === card,
              onPick: () => {
                if (show) {
                  table.targetCard = card;
                  table.picked.clear();
                  table.redraw();
                } else {
                  table.act({ type: action.type, card, seat: action.seat });
                }
              },
            });
          }),
        ),
      );
      const chosen = forSeat.find((action) => action.card === table.targetCard);
      const show = chosen && Object.entries(chosen).find(([, value]) => isChoose(value));
      if (chosen && show) {
        const [field, choice] = show as [string, { choose: number; from: string[] }];
        const picked = pickedFor(table, `${chosen.type}:${field}`);
        parts.push(
          h("p", null, `Show ${choice.choose} of your cards with it:`),
          h(
            "div",
            { class: "card-row", role: "group", "aria-label": "Cards to show" },
            choice.from.map((card) =>
              cardView(table.book, card, {
                selected: picked.includes(card),
                onPick: () => {
                  if (picked.includes(card)) picked.splice(picked.indexOf(card), 1);
                  else if (picked.length < choice.choose) picked.push(card);
                  table.redraw();
                },
              }),
            ),
          ),
        );
        const send = h("button", { type: "button", disabled: picked.length !== choice.choose }, `Ask, showing ${picked.length} of ${choice.choose}`);
        send.addEventListener("click", () => table.act({ type: chosen.type, card: chosen.card, seat: chosen.seat, [field]: [...picked] }));
        parts.push(send);
      }
    }
  }
  for (const action of legal) {
    if (asks.includes(action) || typeof action.card === "string") continue;
    const fields = Object.entries(action).filter(([key]) => key !== "type");
    const choice = fields.find(([, value]) => isChoose(value));
    if (choice) {
      const [field, value] = choice as [string, { choose: number; from: string[] }];
      const picked = pickedFor(table, action.type);
      const inHand = value.from.every((item) => table.book.has(item));
      if (!inHand) {
        parts.push(
          h(
            "div",
            { class: "choice", role: "group", "aria-label": verbFor(table, action) },
            h("span", null, `${verbFor(table, action)}: pick ${value.choose} in order`),
            value.from.map((item) => {
              const at = picked.indexOf(item);
              const shown = module.itemName?.(table, item) ?? item;
              const button = h("button", { type: "button", class: at >= 0 ? "selected" : "secondary", "aria-pressed": String(at >= 0) }, at >= 0 ? `${at + 1}. ${shown}` : shown);
              button.addEventListener("click", () => {
                if (at >= 0) picked.splice(at, 1);
                else if (picked.length < value.choose) picked.push(item);
                table.redraw();
              });
              return button;
            }),
          ),
        );
      }
      const send = h("button", { type: "button", disabled: picked.length !== value.choose, "data-action": action.type }, `${verbFor(table, action)}${value.choose > 1 ? ` (${picked.length} of ${value.choose})` : ""}`);
      send.addEventListener("click", () => table.act({ ...action, [field]: [...picked] } as Move));
      parts.push(send);
      continue;
    }
    parts.push(plainButton(table, module, action));
  }
  if (parts.length === 0) return null;
  return h("section", { class: "actions", "aria-label": "Your move" }, h("h2", null, "Your move"), ...parts);
}

/** A move with nothing to choose, as a button that says what it does when selected. */
function plainButton(table: Table, module: GameModule, action: Legal): HTMLButtonElement {
  const fields = Object.entries(action).filter(([key]) => key !== "type");
  const label = module.verbs[`${action.type}:${fields.map(([, value]) => String(value)).join(":")}`] ?? [verbFor(table, action), ...fields.map(([, value]) => module.itemName?.(table, String(value)) ?? String(value))].join(" ");
  const button = h("button", { type: "button", "data-action": action.type, "data-hint": describeMove(module, table, action) }, label.replace(/_/g, " "));
  button.addEventListener("click", () => table.act({ ...action } as Move));
  return button;
}

/** Standing orders (British Birds' Owl preference) apart from this turn's move: they are
 * not a move, and a player who mistook one for "hand over" would give a card away. */
function standingPanel(table: Table, module: GameModule): HTMLElement | null {
  const standing = module.standing;
  if (!standing) return null;
  const orders = table.legal.filter((action) => standing.types.includes(action.type));
  if (orders.length === 0) return null;
  return h(
    "fieldset",
    { class: "standing-orders" },
    h("legend", null, standing.heading),
    h("p", { class: "quiet" }, standing.explain),
    standing.now ? h("p", { class: "standing-now" }, standing.now(table)) : null,
    orders.map((action) => plainButton(table, module, action)),
  );
}

/** The hint line: what the move under the pointer or focus, or the one being put together,
 * will do. Card buttons are the games' own (drawn by their modules), so the move behind one
 * is found from its `data-card` and where it sits, not from a mark on the button. */
function hintFor(table: Table, module: GameModule, target: Element | null): string | null {
  const marked = target?.closest<HTMLElement>("[data-hint]");
  if (marked?.dataset.hint) return marked.dataset.hint;
  const card = target?.closest<HTMLElement>("[data-card]")?.dataset.card;
  if (!card) return null;
  if (target?.closest("[aria-label='Cards to ask for']") && table.target !== null) {
    const ask = table.legal.find((action) => action.seat === table.target && action.card === card);
    return ask ? describeMove(module, table, ask) : null;
  }
  const single = cardAction(table, card);
  if (single) return describeMove(module, table, single);
  const picking = table.legal.find((action) => !("seat" in action) && Object.values(action).some((value) => isChoose(value) && value.from.includes(card)));
  if (!picking) return null;
  const taken = table.picked.get(picking.type)?.includes(card);
  const name = table.book.name(card);
  return `${describeMove(module, table, picking)} ${taken ? `${name} is picked: choose it again to put it back.` : `Choose ${name} to add it.`}`;
}

/** The hint for what is already chosen: a player to ask, cards picked for a lay. */
function selectionHint(table: Table, module: GameModule): string {
  if (table.target !== null) {
    const ask = table.legal.find((action) => action.seat === table.target && (table.targetCard === null || action.card === table.targetCard));
    if (ask) return table.targetCard ? describeMove(module, table, ask) : describeMove(module, table, { type: ask.type, seat: ask.seat });
  }
  for (const [type, picked] of table.picked) {
    const action = table.legal.find((candidate) => candidate.type === type);
    if (action && picked.length > 0) return describeMove(module, table, action);
  }
  return "";
}

function seatControls(table: Table, id: string, status: HTMLElement, refresh: (view: GameView) => void): HTMLElement | null {
  const view = table.view;
  if (table.me === null || view.status !== "active") return null;
  const me = table.me;
  const bot = view.seating?.seats.find((seat) => seat.seat === me)?.bot;
  const resign = h("button", { type: "button", class: "danger" }, "Resign");
  resign.addEventListener("click", () => {
    if (!confirm("Resign this game? It ends for everyone.")) return;
    void busy(resign, status, async () => refresh((await ok(api.POST("/v1/games/{id}/resign", { params: { path: { id } } }))) as GameView));
  });
  const hand = h("button", { type: "button", class: "secondary" }, bot ? "Take my seat back from the bot" : "Let a bot play for me");
  hand.addEventListener("click", () =>
    void busy(hand, status, async () => {
      if (bot) await ok(api.DELETE("/v1/games/{id}/seats/{seat}/bot", { params: { path: { id, seat: me } } }));
      else await ok(api.PUT("/v1/games/{id}/seats/{seat}/bot", { params: { path: { id, seat: me } }, body: { level: "steady" } }));
      refresh(await loadView(id));
    }),
  );
  return h("section", { class: "controls" }, hand, " ", resign);
}

/** Who may claim an empty seat, in words. */
function openTo(seat: { open_to?: { kind: string; account?: string } | null }): string {
  switch (seat.open_to?.kind) {
    case "invitation":
      return "by invitation link";
    case "anyone":
      return "open to anyone";
    case "account":
      return "held for an invited player";
    default:
      return "not offered (withdrawn)";
  }
}

/** The bot level the host chose for each empty seat (`game/seat`), kept while the panel is
 * drawn again (any event on the table's stream redraws it), so a choice is never quietly
 * put back to the default between choosing and pressing the button. */
const chosenLevels = new Map<string, Schemas["SeatBot"]["level"]>();

/** The host's panel at a waiting table: each empty seat's invitation link again (as this
 * device was given it), a new link, the seat opened to anyone or withdrawn, and the game
 * called off. */
function managePanel(table: Table, id: string, status: HTMLElement, refresh: (view: GameView) => void, host: boolean): HTMLElement | null {
  const view = table.view;
  if (!host || view.status !== "waiting" || !view.seating) return null;
  const known = invitationLinks(id);
  const empty = view.seating.seats.filter((seat) => !seat.holder && !seat.bot);
  for (const seat of view.seating.seats) {
    if ((seat.holder || seat.open_to?.kind !== "invitation") && known[seat.seat]) keepInvitationLink(id, seat.seat, null);
  }
  const offer = (seat: number, to: Schemas["SeatPlan"]) => async () => {
    const offered = await ok(api.PUT("/v1/games/{id}/seats/{seat}/offer", { params: { path: { id, seat } }, body: { to } }));
    keepInvitationLink(id, seat, offered.invitation ? new URL(offered.invitation.link, location.origin).href : null);
    refresh(await loadView(id));
  };
  const button = (label: string, work: () => Promise<void>, kind = "secondary") => {
    const b = h("button", { type: "button", class: kind }, label);
    b.addEventListener("click", () => void busy(b, status, work));
    return b;
  };
  // An empty seat given to a bot of a chosen level: with every seat filled, the game begins.
  const botChoice = (seat: number, make: typeof button) => {
    const key = `${id}/${seat}`;
    const current = chosenLevels.get(key) ?? "steady";
    const level = h(
      "select",
      { "aria-label": `Seat ${seat + 1} bot level` },
      (["random", "steady", "expert"] as const).map((name) => h("option", { value: name, selected: name === current }, `${name.charAt(0).toUpperCase()}${name.slice(1)} bot`)),
    ) as HTMLSelectElement;
    level.addEventListener("change", () => chosenLevels.set(key, level.value as Schemas["SeatBot"]["level"]));
    return h(
      "p",
      null,
      level,
      " ",
      make("Give the seat to this bot", async () => {
        const chosen = level.value as Schemas["SeatBot"]["level"];
        await ok(api.PUT("/v1/games/{id}/seats/{seat}/bot", { params: { path: { id, seat } }, body: { level: chosen } }));
        keepInvitationLink(id, seat, null);
        refresh(await loadView(id));
      }),
    );
  };
  const callOff = button(
    "Call the game off",
    async () => {
      if (!confirm("Call this game off? Nobody will be able to play it.")) return;
      await ok(api.POST("/v1/games/{id}/abort", { params: { path: { id } } }));
      navigate("/play");
    },
    "danger",
  );
  return h(
    "section",
    { class: "manage", "aria-labelledby": "manage" },
    h("h2", { id: "manage" }, "Manage the table"),
    empty.length === 0
      ? h("p", { class: "quiet" }, "Every seat is taken.")
      : h(
          "ul",
          { class: "manage-seats" },
          empty.map((seat) =>
            h(
              "li",
              { "data-manage-seat": seat.seat },
              h("strong", null, `Seat ${seat.seat + 1}`),
              ` ${openTo(seat)}`,
              seat.open_to?.kind === "invitation" && known[seat.seat]
                ? copyField(`Seat ${seat.seat + 1} invitation link`, known[seat.seat] ?? "")
                : seat.open_to?.kind === "invitation"
                  ? h("p", { class: "quiet" }, "Its link was shown on another device: make a new one to see it here.")
                  : null,
              h(
                "p",
                null,
                button(seat.open_to?.kind === "invitation" ? "New invitation link" : "Invite by link", offer(seat.seat, { kind: "invitation" })),
                " ",
                seat.open_to?.kind === "anyone" ? null : button("Open to anyone", offer(seat.seat, { kind: "anyone" })),
                " ",
                seat.open_to
                  ? button("Withdraw", async () => {
                      await ok(api.DELETE("/v1/games/{id}/seats/{seat}/offer", { params: { path: { id, seat: seat.seat } } }));
                      keepInvitationLink(id, seat.seat, null);
                      refresh(await loadView(id));
                    })
                  : null,
              ),
              botChoice(seat.seat, button),
            ),
          ),
        ),
    h("p", null, callOff),
  );
}

export async function tablePage(root: HTMLElement, params: Record<string, string>, signal: AbortSignal): Promise<void> {
  const id = params.id ?? "";
  const main = frame(root, "Table");
  let view: GameView;
  try {
    view = await loadView(id);
  } catch (error) {
    main.append(errorBox(error), h("p", null, h("a", { href: "/play", "data-link": true }, "Back to my games")));
    return;
  }
  // Whether this account hosts the table: its manage panel is shown while it waits.
  let hosting = false;
  if (view.status === "waiting" && view.seating && session.token()) {
    const host = view.seating.host.id;
    hosting = await ok(api.GET("/v1/me")).then((me) => me.account.id === host, () => false);
  }
  const module = moduleFor(view.game);
  const catalog = await catalogGame(view.game);
  const book = new CardBook(catalog.cards, view.game);
  const story = h("ol", { class: "story", "aria-label": "What has happened", reversed: true, tabindex: 0 });
  const events: GameEvent[] = [];
  // The story shows the newest lines first, a page at a time: "Earlier" goes back a page,
  // down to the deal.
  const STORY_PAGE = 60;
  let storyShown = STORY_PAGE;
  const earlier = h("button", { type: "button", class: "secondary earlier", hidden: true }, "Earlier");
  earlier.addEventListener("click", () => {
    storyShown += STORY_PAGE;
    tellStory();
  });
  const hint = h("p", { class: "move-hint", "aria-live": "polite" });
  const status = h("div", { "aria-live": "assertive" });
  const body = h("div", { class: "table-body", "data-version": -1 });
  const table: Table = {
    view,
    book,
    names: [],
    me: null,
    legal: [],
    picked: new Map(),
    target: null,
    targetCard: null,
    redraw: () => draw(),
    act: (move: Move) => void send(move),
    verbs: module.verbs,
  };
  let lastVersion = -1;

  const tellStory = () => {
    const lines = storyLines(module, table, events).reverse();
    replace(story, lines.slice(0, storyShown).map((line) => h("li", null, line)));
    earlier.hidden = lines.length <= storyShown;
    earlier.textContent = `Earlier (${Math.min(STORY_PAGE, lines.length - storyShown)} more)`;
    story.dataset.complete = String(lines.length <= storyShown);
  };

  // The log is read in pages from the last event already held. One reading at a time: two
  // moves in quick succession would otherwise read the same page twice and tell it twice.
  let reading: Promise<void> | null = null;
  let readAgain = false;
  const readLog = async () => {
    for (;;) {
      const after = events.length > 0 ? (events[events.length - 1]?.seq ?? 0) : 0;
      const page = await ok(api.GET("/v1/games/{id}/events", { params: { path: { id }, query: { after, limit: 1000 } } }));
      events.push(...page.events.filter((event) => event.seq > after));
      if (page.events.length === 0 || page.next_after === undefined || page.next_after === null) break;
    }
    await module.prepare?.(table, events).catch(() => undefined);
    tellStory();
    // The results panel tells why the game ended from the log's last table events.
    if (view.status === "finished") draw();
  };
  const loadStory = async (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        await readLog();
      } while (readAgain);
    })().finally(() => (reading = null));
    return reading;
  };

  const draw = () => {
    table.view = view;
    table.names = view.seats.map((seat) => seat.name);
    table.me = view.you?.seat ?? null;
    table.legal = view.legal_actions as Legal[];
    const mine = table.me !== null && view.to_act.includes(table.me);
    setTitle(`${mine ? "Your move · " : ""}${gameName(view.game)} — Parlour`);
    body.dataset.version = String(view.version);
    body.dataset.status = view.status;
    hint.textContent = selectionHint(table, module);
    replace(
      body,
      claimPanel(view, id),
      h("h1", null, gameName(view.game), " ", h("span", { class: "quiet" }, view.status === "waiting" ? "waiting for players" : view.status === "finished" ? "finished" : mine ? "your move" : "")),
      resultsPanel(table, module, events),
      view.deal_of
        ? h("p", { class: "match-link" }, h("a", { href: `/play/matches/${view.deal_of.match}`, "data-link": true, id: "match-link" }, `Deal ${view.deal_of.deal + 1} of a match: the standings`))
        : null,
      seatList(table),
      h("section", { class: "board", "aria-label": "The table" }, module.board(table)),
      // While the game waits for players nobody is shown a card, not even their own (the
      // server sends no hand), so there is no hand to draw.
      // My cards and my move together: on a phone they stay at the bottom of the screen.
      h("div", { class: "dock" }, mineShown(view.status === "waiting" ? null : module.hand(table)), actionPanel(table, module), hint),
      standingPanel(table, module),
      status,
      seatControls(table, id, status, (next) => accept(next)),
      managePanel(table, id, status, (next) => accept(next), hosting),
      howToPlay(view.game, gameName(view.game)),
      h("section", { class: "story-panel" }, h("h2", null, "The story so far"), story, earlier),
      h(
        "section",
        { class: "share" },
        view.status === "finished"
          ? h("p", null, h("a", { href: `/play/games/${id}/replay`, "data-link": true, class: "button" }, "Replay and audit"))
          : copyField("Link for spectators", `${location.origin}/play/games/${id}`),
      ),
    );
  };

  const accept = (next: GameView) => {
    if (next.version < lastVersion) return;
    const moved = next.version !== lastVersion;
    lastVersion = next.version;
    view = next;
    if (moved) keepWhatIsStillLegal(table, next.legal_actions as Legal[]);
    draw();
    if (moved) void loadStory().catch(() => undefined);
  };

  // One move on its way at a time: a second click before the first is answered would be sent
  // against the same version and refused as stale. `data-sending` lets a watcher (the browser
  // tests) tell "my move was answered" from "somebody else moved".
  let sending = false;
  const send = async (move: Move) => {
    if (sending) return;
    sending = true;
    body.dataset.sending = "true";
    status.replaceChildren();
    try {
      const next = await ok(
        api.POST("/v1/games/{id}/actions", {
          params: { path: { id }, header: { "If-Match": `"${view.version}"` } },
          body: move as never,
        }),
      );
      accept(next as GameView);
    } catch (error) {
      status.replaceChildren(errorBox(error));
      if (error instanceof ApiError && error.status === 412) accept(await loadView(id).catch(() => view));
    } finally {
      sending = false;
      delete body.dataset.sending;
    }
  };

  // What the move under the pointer or the focus will do; leaving it shows again what the
  // selection so far will do.
  const pointAt = (event: Event) => {
    const text = hintFor(table, module, event.target as Element | null);
    hint.textContent = text ?? selectionHint(table, module);
  };
  body.addEventListener("mouseover", pointAt);
  body.addEventListener("focusin", pointAt);

  main.append(body);
  accept(view);
  void follow(
    `/v1/games/${id}/stream`,
    (event, data) => {
      if (event === "view") accept(JSON.parse(data) as GameView);
    },
    signal,
  );
  if (!session.token() && invitation()) return;
  if (view.status === "finished" && !invitation() && location.hash === "#replay") navigate(`/play/games/${id}/replay`);
}
