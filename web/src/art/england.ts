/** History of England: a Crown card bears the crown itself, gold on its series' colour; a
 * reign's other cards bear its shield under a small crown. */

import { circle, path, picture, rect, type Shape } from "./draw";

/** The three series' colours: crimson, royal blue, green. */
const SERIES = ["#9e1b32", "#1f3a93", "#1e6b3a"];

export function seriesColour(series: number | undefined): string {
  return SERIES[((series ?? 1) - 1) % SERIES.length] ?? "#555";
}

const GOLD = "#e3b23c";
const GOLD_DARK = "#9c7416";

/** The crown (each shape is placed by a transform where it is used). */
function crownShapes(): Shape[] {
  return [
    path("M30 34C30 18 70 18 70 34Z", "#b3202e"),
    path("M22 50L17 20L33 34L42 12L50 28L58 12L67 34L83 20L78 50Z", GOLD, GOLD_DARK, 1.2),
    rect(21, 49, 58, 8, GOLD, 1.5),
    circle(17, 19, 3, GOLD),
    circle(42, 11, 3, GOLD),
    circle(58, 11, 3, GOLD),
    circle(83, 19, 3, GOLD),
    circle(50, 53, 2.6, "#b3202e"),
    circle(36, 53, 2, "#1f6fb2"),
    circle(64, 53, 2, "#1f6fb2"),
    circle(50, 38, 3, "#1f8a4c"),
  ];
}

/** The Crown card's picture: the crown on the series' colour. */
export function crown(series: number | undefined): SVGElement {
  return picture("crown", [rect(0, 0, 100, 64, seriesColour(series)), ...crownShapes().map((shape) => (shape.setAttribute("transform", "translate(5 3) scale(0.9)"), shape))]);
}

/** Gold charges for a reign's shield (a cross, a chevron, a saltire, three roundels, a bar,
 * quarters), one per reign, so neighbouring reigns' cards differ at a glance. */
const CHARGES: ((gold: string) => Shape[])[] = [
  (gold) => [path("M47 16H53V28H66V34H53V59L50 60L47 59V34H34V28H47Z", gold)],
  (gold) => [path("M34 46L50 30L66 46V54L50 38L34 54Z", gold)],
  (gold) => [path("M34 16H40L50 27L60 16H66V20L54 33L66 46V52L50 37L38 52H34V46L46 33L34 20Z", gold)],
  (gold) => [circle(43, 26, 5, gold), circle(57, 26, 5, gold), circle(50, 41, 5, gold)],
  (gold) => [rect(34, 29, 32, 8, gold)],
  (gold) => [path("M34 16H50V34H34ZM50 34H66C66 46 60 54 50 60Z", gold)],
];

/** A steady number for a reign's name. */
function hash(text: string): number {
  let value = 0;
  for (const char of text) value = (value * 31 + char.charCodeAt(0)) >>> 0;
  return value;
}

/** A reign's other cards: its shield of the series' colour with a gold charge, crowned. */
export function shield(series: number | undefined, reign = ""): SVGElement {
  const colour = seriesColour(series);
  const small = crownShapes().map((shape) => (shape.setAttribute("transform", "translate(37 -1) scale(0.26)"), shape));
  return picture("feature", [
    rect(0, 0, 100, 64, "#f4ead2"),
    ...small,
    path("M34 16H66V34C66 48 58 56 50 60C42 56 34 48 34 34Z", colour, GOLD_DARK, 1.2),
    ...(CHARGES[hash(reign) % CHARGES.length] ?? CHARGES[0] ?? (() => []))(GOLD),
  ]);
}
