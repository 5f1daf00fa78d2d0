/** Cards drawn as clean SVG from the catalogue's data (names, values, set letters, TRIO
 * ranks): no artwork, so nothing copyrighted, and every card readable at phone size. */

import { h, s } from "./h";

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
  pack?: string;
  runs?: number;
  hows_that?: boolean;
  out?: string | null;
  leg_bye?: boolean;
}

/** The cards of one game, by id. */
export class CardBook {
  private readonly byId = new Map<string, CardData>();
  constructor(cards: unknown[]) {
    for (const card of cards as CardData[]) this.byId.set(card.id, card);
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
}

const PALETTE = ["#f6d6d0", "#d8e8f6", "#dcefd6", "#f3e6c4", "#e6dcf3", "#d4efed", "#f3d9e8", "#e4e4e4"];

/** A steady colour for a group (set, heroine, reign), from its name. */
function tint(key: string): string {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length] ?? "#eee";
}

/** Words broken into lines of at most `width` characters. */
function lines(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && (line + " " + word).length > width) {
      out.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) out.push(line);
  return out.slice(0, 4);
}

function text(x: number, y: number, content: string, size: number, weight = "normal", anchor = "middle"): SVGElement {
  return s("text", { x, y, "font-size": size, "font-weight": weight, "text-anchor": anchor }, content);
}

/** What the card says, as lines: its title, and details below. */
function face(card: CardData): { band: string; corner: string; title: string; details: string[] } {
  switch (card.kind) {
    case "heroine":
      return { band: tint(card.heroine ?? card.name), corner: "5", title: card.name, details: ["Heroine", "5 points"] };
    case "joker":
      return { band: "#333", corner: "J", title: card.name, details: ["Joker", "4 points"] };
    case "trio":
      return { band: "#ccc", corner: String(card.number ?? ""), title: `Trio ${card.number ?? ""}`, details: (card.pictures ?? []).map((p) => `${p.heroine} ${p.points}`) };
    case "bird":
      return { band: tint(card.set ?? ""), corner: (card.letter ?? "").toUpperCase(), title: card.name, details: [card.set_name ?? "", `No. ${card.number ?? ""}`] };
    case "owl":
      return { band: "#5b4636", corner: "O", title: card.name, details: ["Owl"] };
    default:
      break;
  }
  if (card.reign !== undefined) {
    return {
      band: tint(card.reign),
      corner: card.crown ? "♛" : String(card.series ?? ""),
      title: card.name,
      details: [card.reign, card.year !== undefined && card.year !== null ? String(card.year) : "", card.crown ? "Crown" : ""],
    };
  }
  if (card.pack === "batting") {
    return { band: card.hows_that ? "#f3c4c4" : "#cfe6c8", corner: card.hows_that ? "?" : String(card.runs ?? ""), title: card.name, details: ["Batting"] };
  }
  if (card.pack === "bowling") {
    return { band: card.out ? "#f3c4c4" : "#d8e8f6", corner: card.out ? "W" : "·", title: card.name, details: ["Bowling"] };
  }
  return { band: "#eee", corner: "", title: card.name, details: [] };
}

/** The card's face as an SVG picture. */
export function cardSvg(card: CardData): SVGElement {
  const { band, corner, title, details } = face(card);
  const dark = band === "#333" || band === "#5b4636";
  const titleLines = lines(title, 11);
  const svg = s(
    "svg",
    { viewBox: "0 0 84 120", width: 84, height: 120, "aria-hidden": "true", class: "card-face" },
    s("rect", { x: 1, y: 1, width: 82, height: 118, rx: 7, fill: "#fffdf7", stroke: "#555", "stroke-width": 1.5 }),
    s("rect", { x: 1, y: 1, width: 82, height: 22, rx: 7, fill: band }),
    s("g", { fill: dark ? "#fff" : "#222" }, text(8, 16, corner, 12, "bold", "start")),
    // A long word (Record-breaking) is set smaller rather than cut off.
    s("g", { fill: "#111" }, ...titleLines.map((line, i) => text(42, 42 + i * 13, line, Math.min(11, Math.floor(121 / Math.max(line.length, 1))), "bold"))),
    s("g", { fill: "#333" }, ...details.filter(Boolean).map((line, i) => text(42, 42 + titleLines.length * 13 + 6 + i * 12, line.length > 15 ? `${line.slice(0, 14)}…` : line, 9))),
  );
  return svg;
}

/** The back of a card nobody here may see: it carries no id. */
export function cardBack(label = "a face-down card"): HTMLElement {
  return h(
    "span",
    { class: "card back", role: "img", "aria-label": label },
    s(
      "svg",
      { viewBox: "0 0 84 120", width: 84, height: 120, "aria-hidden": "true" },
      s("rect", { x: 1, y: 1, width: 82, height: 118, rx: 7, fill: "#28456b", stroke: "#555", "stroke-width": 1.5 }),
      s("rect", { x: 8, y: 8, width: 68, height: 104, rx: 4, fill: "none", stroke: "#c9a94b", "stroke-width": 2 }),
    ),
  );
}

/** A card shown face up; clickable (and focusable) when `onPick` is given. */
export function cardView(book: CardBook, id: string, options: { onPick?: () => void; selected?: boolean; note?: string } = {}): HTMLElement {
  const card = book.get(id);
  const label = describeCard(card) + (options.note ? ` (${options.note})` : "");
  if (options.onPick) {
    const button = h("button", { type: "button", class: `card${options.selected ? " selected" : ""}`, "data-card": id, "aria-pressed": options.selected ? "true" : "false", "aria-label": label, title: label }, cardSvg(card));
    button.addEventListener("click", options.onPick);
    return button;
  }
  return h("span", { class: "card", "data-card": id, role: "img", "aria-label": label, title: label }, cardSvg(card));
}

/** The card in words, for screen readers and tooltips. */
export function describeCard(card: CardData): string {
  if (card.kind === "bird") return `${card.name}, set ${(card.letter ?? "").toUpperCase()} (${card.set_name ?? ""})`;
  if (card.reign !== undefined) return `${card.name}, ${card.reign}${card.crown ? ", a Crown" : ""}`;
  if (card.kind === "trio") return `Trio ${card.number ?? ""}: ${(card.pictures ?? []).map((p) => `${p.heroine} ${p.points}`).join(", ")}`;
  return card.name;
}

/** A row of cards. */
export function cardRow(label: string, children: HTMLElement[]): HTMLElement {
  return h("div", { class: "card-row", role: "group", "aria-label": label }, children.length ? children : h("span", { class: "quiet" }, "none"));
}
