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

/** The crown, scaled and placed by `at` (a transform). */
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

/** A reign's other cards: a shield of the series' colour with a gold cross, crowned. */
export function shield(series: number | undefined): SVGElement {
  const colour = seriesColour(series);
  const small = crownShapes().map((shape) => (shape.setAttribute("transform", "translate(37 -1) scale(0.26)"), shape));
  return picture("feature", [
    rect(0, 0, 100, 64, "#f4ead2"),
    ...small,
    path("M34 16H66V34C66 48 58 56 50 60C42 56 34 48 34 34Z", colour, GOLD_DARK, 1.2),
    path("M47 16H53V28H66V34H53V59L50 60L47 59V34H34V28H47Z", GOLD),
  ]);
}
