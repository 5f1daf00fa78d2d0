/** Every card drawn as a card of its own game: a picture drawn in SVG (web/src/art/, drawn
 * for Parlour: nothing copied) with its index, name and details set as HTML text, which
 * wraps instead of being cut off and never shrinks below 12 px on a phone. The aria-label
 * and tooltip keep the whole description in words. */

import { h } from "./h";
import { bird, birdColour, owl } from "./art/birds";
import { bluebird, car, carColour, carIcon, carShort } from "./art/car";
import { crown, seriesColour, shield } from "./art/england";
import { girlStar, head, heroineColour, portrait } from "./art/girl";
import { appeal, batting, bowling } from "./art/googly";
import { track } from "./motion";

/** One catalogue card: the fields any of the five games gives its cards. */
export interface CardData {
  id: string;
  name: string;
  kind?: string;
  heroine?: string;
  points?: number;
  number?: number;
  pictures?: { heroine: string; points: number }[];
  set?: string;
  letter?: string;
  set_name?: string;
  habitat?: string;
  series?: number;
  reign?: string;
  crown?: boolean;
  set_size?: number;
  year?: string | number | null;
  from?: number;
  to?: number;
  pack?: string;
  runs?: number;
  hows_that?: boolean;
  out?: string | null;
  leg_bye?: boolean;
}

/** The cards of one game, by id, and which game they are (GIRL and The CAR Game share one
 * pack under two themes, and each names it its own way). */
export class CardBook {
  private readonly byId = new Map<string, CardData>();
  readonly game: string;
  constructor(cards: unknown[], game?: string) {
    for (const card of cards as CardData[]) this.byId.set(card.id, card);
    this.game = game ?? guessGame(cards as CardData[]);
  }
  get(id: string): CardData {
    return this.byId.get(id) ?? { id, name: id };
  }
  /** Whether `id` is one of this game's cards. */
  has(id: string): boolean {
    return this.byId.has(id);
  }
  /** The card's name in a sentence. */
  name(id: string): string {
    return this.get(id).name;
  }
  /** The card in words, for screen readers and tooltips. */
  describe(id: string): string {
    return describeCard(this.get(id), this.game);
  }
}

/** The game a catalogue belongs to, from its cards (for a page that does not say). */
function guessGame(cards: CardData[]): string {
  const first = cards[0];
  if (!first) return "";
  if (first.pack) return "googly";
  if (first.reign !== undefined) return "history-of-england";
  if (first.kind === "bird" || first.kind === "owl") return "british-birds";
  return cards.some((card) => card.kind === "joker" && card.name === "BLUEBIRD") ? "car" : "girl";
}

/** What a card shows: its picture, index, name and details, and its colour. */
interface Face {
  /** The class naming its look: `heroine`, `crown`, `out`... */
  kind: string;
  /** Its colour (the band round its picture). */
  tone: string;
  /** The index in its top corner (points, set letter, runs). */
  corner: string;
  /** A word in the other corner (Land, CROWN, OUT). */
  tag?: string;
  /** Its picture (a TRIO card has its three small ones instead). */
  art?: SVGElement;
  title: string;
  notes: string[];
  /** A TRIO card's three pictures, top (3 points) to bottom (1 point). */
  trio?: { points: number; name: string; art: SVGElement }[];
}

const isCar = (game: string) => game === "car";

function trioFace(card: CardData, game: string): Face {
  const pictures = card.pictures ?? [];
  return {
    kind: "trio",
    tone: "#8a8a8a",
    corner: String(card.number ?? ""),
    // The corner has its number: the title says only what kind of card it is.
    title: "TRIO",
    notes: [],
    trio: pictures.map((picture) =>
      isCar(game)
        ? { points: picture.points, name: carShort(picture.heroine), art: carIcon(picture.heroine) }
        : { points: picture.points, name: picture.heroine.split(" ")[0] ?? picture.heroine, art: head(picture.heroine) },
    ),
  };
}

/** GIRL's and The CAR Game's cards, each in its own game's words. */
function trioPackFace(card: CardData, game: string): Face {
  if (card.kind === "trio") return trioFace(card, game);
  if (card.kind === "joker") {
    return isCar(game)
      ? { kind: "joker", tone: "#1f5fbf", corner: "4", art: bluebird(), title: card.name, notes: ["4 for any class"] }
      : { kind: "joker", tone: "#d62839", corner: "4", art: girlStar(), title: card.name, notes: ["4 for any heroine"] };
  }
  const name = card.heroine ?? card.name;
  return isCar(game)
    ? { kind: "heroine", tone: carColour(name), corner: "5", art: car(name), title: card.name, notes: ["Car-class"] }
    : { kind: "heroine", tone: heroineColour(name), corner: "5", art: portrait(name), title: card.name, notes: ["Heroine"] };
}

function birdFace(card: CardData): Face {
  if (card.kind === "owl") return { kind: "owl", tone: "#1f2a44", corner: "Owl", art: owl(), title: card.name, notes: ["keeps a card"] };
  const letter = (card.letter ?? "").toUpperCase();
  const habitat = card.habitat ?? "land";
  return {
    kind: "bird",
    tone: birdColour(letter),
    corner: `${letter}${card.number ?? ""}`,
    tag: habitat === "water" ? "Water" : "Land",
    art: bird(letter, habitat),
    title: card.name,
    notes: [card.set_name ?? ""],
  };
}

const ROMAN = ["", "I", "II", "III"];

function englandFace(card: CardData): Face {
  const series = ROMAN[card.series ?? 0] ?? String(card.series ?? "");
  if (card.crown) {
    return { kind: "crown", tone: seriesColour(card.series), corner: series, tag: "CROWN", art: crown(card.series), title: card.name.replace(/^Crown: /, ""), notes: [card.from ? `${card.from}–${card.to ?? ""}` : "", card.set_size ? `${card.set_size} in the reign` : ""] };
  }
  return { kind: "feature", tone: seriesColour(card.series), corner: series, tag: card.year !== undefined && card.year !== null ? String(card.year) : undefined, art: shield(card.series, card.reign), title: card.name, notes: [card.reign ?? ""] };
}

function googlyFace(card: CardData): Face {
  if (card.pack === "batting") {
    return card.hows_that
      ? { kind: "appeal", tone: "#b71c1c", corner: "?", art: appeal(), title: card.name, notes: ["Batting"] }
      : { kind: "batting", tone: "#2e7d32", corner: String(card.runs ?? ""), art: batting(card.runs ?? 0), title: card.name, notes: ["Batting"] };
  }
  if (card.out) return { kind: "out", tone: "#b71c1c", corner: "W", tag: "OUT", art: bowling(card.out, false), title: card.name, notes: ["Bowling"] };
  return { kind: card.leg_bye ? "leg-bye" : "not-out", tone: "#1f3a93", corner: card.leg_bye ? "1" : "0", art: bowling(null, Boolean(card.leg_bye)), title: card.name, notes: ["Bowling"] };
}

function face(card: CardData, game: string): Face {
  if (card.pack) return googlyFace(card);
  if (card.reign !== undefined) return englandFace(card);
  if (card.kind === "bird" || card.kind === "owl") return birdFace(card);
  return trioPackFace(card, game);
}

const VOWEL = /[aeiouy]/i;

/** Where a long word may be hyphenated: between two consonants after a vowel (Oyster-catcher)
 * or before a consonant that starts a syllable (Consti-tutions), never near its ends. */
function softHyphens(word: string): string {
  if (word.length < 10) return word;
  let out = word.slice(0, 4);
  for (let i = 4; i < word.length; i++) {
    const [a, b, c, d] = [word[i - 2] ?? "", word[i - 1] ?? "", word[i] ?? "", word[i + 1] ?? ""];
    const split = (VOWEL.test(a) && /[a-z]/i.test(b) && !VOWEL.test(b) && /[a-z]/i.test(c) && !VOWEL.test(c)) || (VOWEL.test(b) && /[a-z]/i.test(c) && !VOWEL.test(c) && VOWEL.test(d));
    out += (split && i <= word.length - 3 ? "\u00ad" : "") + c;
  }
  return out;
}

/** A name set so that it breaks rather than overflow a narrow card: after a slash
 * ("Vintage/Veteran"), or hyphenated inside a long word ("Constitutions"). */
function breakable(text: string): string {
  return text.replace(/\//g, "/\u200b").replace(/[A-Za-z']{10,}/g, softHyphens);
}

/** The face's parts as HTML: every line of text a `.card-text` element. */
function faceParts(f: Face): Node[] {
  // The face is for the eye; assistive technology reads the card's label, which names it in
  // words, title first (the corner, tag, notes and the soft hyphens of a long title would
  // only garble it).
  const parts: Node[] = [
    h("span", { class: "card-top", "aria-hidden": "true" }, h("span", { class: "card-text card-corner" }, f.corner), f.tag ? h("span", { class: "card-text card-tag" }, f.tag) : null),
  ];
  if (f.trio) {
    parts.push(
      h("span", { class: "card-text card-title", "aria-hidden": "true" }, f.title),
      h(
        "span",
        { class: "trio-panel", "aria-hidden": "true" },
        f.trio.map((picture) => h("span", { class: "trio-line" }, h("span", { class: "card-text trio-points" }, String(picture.points)), picture.art, h("span", { class: "card-text trio-name" }, breakable(picture.name)))),
      ),
    );
    return parts;
  }
  if (f.art) parts.push(f.art);
  parts.push(h("span", { class: "card-text card-title", "aria-hidden": "true" }, breakable(f.title)));
  for (const note of f.notes.filter(Boolean)) parts.push(h("span", { class: "card-text card-note", "aria-hidden": "true" }, breakable(note)));
  return parts;
}

/** The card's face: its classes, colour and parts, inside `element`. */
function dress(element: HTMLElement, card: CardData, game: string): HTMLElement {
  const f = face(card, game);
  element.classList.add("face", `game-${game || "any"}`, `kind-${f.kind}`);
  // The colour is set through the CSSOM, which the page's CSP allows (a style attribute
  // in markup it would not).
  element.style.setProperty("--tone", f.tone);
  element.append(...faceParts(f));
  return element;
}

/** The back of a card nobody here may see: it carries no id. Each game's backs have their
 * own colour (`game`). */
export function cardBack(label = "a face-down card", key = label, game = ""): HTMLElement {
  const back = h("span", { class: `card back${game ? ` game-${game}` : ""}`, role: "img", "aria-label": label, title: label }, h("span", { class: "back-panel" }));
  track(back, `back:${key}`);
  return back;
}

/** A face-down pack: a stack of backs as deep as the pack is thick, with its count. */
export function packStack(count: number, label: string, game = ""): HTMLElement {
  const depth = count > 30 ? 4 : count > 15 ? 3 : count > 5 ? 2 : count > 1 ? 1 : 0;
  const back = cardBack(label, label, game);
  back.classList.add("stack", `depth-${depth}`);
  back.append(h("span", { class: "card-text stack-count", "aria-hidden": "true" }, String(count)));
  return back;
}

/** A card shown face up; clickable (and focusable) when `onPick` is given. */
export function cardView(book: CardBook, id: string, options: { onPick?: () => void; selected?: boolean; note?: string } = {}): HTMLElement {
  const card = book.get(id);
  const label = book.describe(id) + (options.note ? ` (${options.note})` : "");
  let element: HTMLElement;
  if (options.onPick) {
    // A button is named by its content: the label in words, for assistive technology only,
    // beside a face drawn for the eye (hidden from it). An aria-label instead would have to
    // hold every word drawn on the face to pass "label in name" (WCAG 2.5.3).
    element = h("button", { type: "button", class: `card${options.selected ? " selected" : ""}`, "data-card": id, "aria-pressed": options.selected ? "true" : "false", title: label });
    element.addEventListener("click", options.onPick);
  } else {
    element = h("span", { class: "card", "data-card": id, role: "img", "aria-label": label, title: label });
  }
  dress(element, card, book.game);
  if (options.onPick) element.append(h("span", { class: "sr-only" }, label));
  track(element, id);
  return element;
}

/** The card in words, for screen readers and tooltips, in its own game's words. */
export function describeCard(card: CardData, game = ""): string {
  if (card.kind === "bird") return `${card.name}, set ${(card.letter ?? "").toUpperCase()} number ${card.number ?? ""} (${card.set_name ?? ""}, a ${card.habitat ?? "land"} bird)`;
  if (card.kind === "owl") return `${card.name}, an Owl`;
  if (card.reign !== undefined) {
    return card.crown
      ? `${card.name}, a Crown (${card.reign}${card.from ? `, ${card.from}–${card.to ?? ""}` : ""})`
      : `${card.name}${card.year ? `, ${card.year}` : ""}, of the reign of ${card.reign}`;
  }
  if (card.pack === "batting") return `${card.name}, a batting card`;
  if (card.pack === "bowling") return `${card.name}, a bowling card${card.out ? ": out" : ""}`;
  const car = isCar(game);
  if (card.kind === "trio") return `${card.name}: ${(card.pictures ?? []).map((p) => `${p.heroine} ${p.points}`).join(", ")}`;
  if (card.kind === "joker") return `${card.name}, 4 points for any ${car ? "class of car" : "heroine"}`;
  if (card.kind === "heroine") return `${card.name}, a ${car ? "CAR-CLASS" : "HEROINE"} card, 5 points`;
  return card.name;
}

/** A row of cards; a `fan` overlaps them like cards laid down on a table. */
export function cardRow(label: string, children: HTMLElement[], options: { fan?: boolean } = {}): HTMLElement {
  // A row scrolls sideways when it is long: one of cards to pick is reached card by card
  // with the keyboard; one of cards only to look at is itself made reachable, to scroll.
  const pickable = children.some((child) => child.tagName === "BUTTON");
  return h("div", { class: `card-row${options.fan && children.length > 1 ? " fan" : ""}`, role: "group", "aria-label": label, tabindex: pickable ? undefined : 0 }, children.length ? children : h("span", { class: "quiet" }, "none"));
}
