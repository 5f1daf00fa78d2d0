/** British Birds: one silhouette for each set's kind of bird (a garden songbird, a woodpecker
 * on its trunk, a lark in flight, a hovering falcon, a swimming duck, a heron in the reeds, a
 * wader, a gull over the sea), in the set's colour, on land or water; and the Owl by night. */

import { circle, line, path, picture, rect, type Shape } from "./draw";

interface BirdSet {
  colour: string;
  bird: (colour: string) => Shape[];
}

const BROWN = "#6d4c2f";
const EYE = "#fff";

const SETS: Record<string, BirdSet> = {
  // Garden: a plump songbird on a branch.
  A: {
    colour: "#c0392b",
    bird: (c) => [line("M14 51H88", BROWN, 3), path("M30 44C30 32 42 26 54 28C56 20 70 18 72 27L80 29L72 32C72 42 62 48 50 48H40L20 54Z", c), path("M52 33C60 34 66 38 64 44C58 46 52 42 52 33Z", "#f08a4b"), circle(66, 25, 1.6, EYE), line("M46 48V52M52 48V52", BROWN, 1.5)],
  },
  // Woodland: a woodpecker clinging to a trunk.
  B: {
    colour: "#2e7d32",
    bird: (c) => [rect(62, 0, 12, 58, "#8d6e63"), path("M60 54C46 50 42 34 46 24C48 16 56 12 60 18L70 16L60 23C62 32 62 44 60 54L62 62Z", c), circle(53, 16, 3.2, "#d32f2f"), circle(56, 19, 1.4, EYE), path("M50 30C56 32 58 40 56 46C50 42 48 36 50 30Z", "#fff")],
  },
  // Field and hedgerow: a lark singing as it rises.
  C: {
    colour: "#b07d12",
    bird: (c) => [path("M22 44C32 38 42 38 50 40L40 14C52 20 58 30 58 39C66 38 74 36 80 38L88 35L84 42C76 46 62 48 50 47C40 49 30 48 22 44Z", c), path("M56 40L70 18C74 30 68 38 62 42Z", c), circle(80, 38.5, 1.3, EYE), line("M8 58C30 54 70 54 92 58", "#7cb342", 3)],
  },
  // Birds of prey: a falcon hovering, wings spread.
  D: {
    colour: "#6d4c41",
    bird: (c) => [path("M50 22C46 22 44 26 44 30L6 22C14 32 28 37 44 37L46 50L50 58L54 50L56 37C72 37 86 32 94 22L56 30C56 26 54 22 50 22Z", c), path("M48 22L50 18L52 22Z", "#f2b134"), circle(48, 25, 1.1, EYE), circle(52, 25, 1.1, EYE), line("M20 28L30 31M80 28L70 31", "#3e2723", 1.2)],
  },
  // Lakes and ponds: a duck afloat.
  E: {
    colour: "#1565c0",
    bird: (c) => [path("M18 44C18 36 32 34 46 38H58C56 30 58 22 66 22C72 22 74 28 72 32L81 34L72 37C70 41 70 45 66 49L26 50C22 50 18 48 18 44Z", c), path("M34 40C44 38 54 40 58 44C48 47 40 46 34 40Z", "#0d3c75"), circle(67, 27, 1.5, EYE)],
  },
  // Rivers and reedbeds: a heron standing among reeds.
  F: {
    colour: "#00838f",
    bird: (c) => [line("M14 58V30M20 58V36M86 58V32", "#7c8b3a", 2), path("M36 38C38 28 48 26 56 28C60 22 58 16 62 12L78 14L64 16C62 20 64 26 62 32C60 40 52 42 44 42L28 46Z", c), line("M48 42L47 58M52 42L54 58", "#37474f", 1.6), circle(65, 14, 1.2, EYE)],
  },
  // Shore and estuary: a curlew on long legs, bill curved down.
  G: {
    colour: "#5d6d7e",
    bird: (c) => [path("M28 36C28 28 42 26 54 30C58 24 66 24 68 30C74 32 80 38 84 46C78 39 72 35 68 37C64 43 56 45 46 45H34Z", c), line("M44 45L42 58M50 45L52 58", "#37474f", 1.6), circle(63, 28, 1.2, EYE), path("M0 58C20 55 80 55 100 58V64H0Z", "#d9c79e")],
  },
  // Sea and cliffs: a gull gliding over the waves.
  H: {
    colour: "#37474f",
    bird: (c) => [path("M80 64L84 34L100 30V64Z", "#8d8170"), path("M8 28C20 20 34 22 46 32L50 34L54 32C66 22 78 20 90 28C78 26 66 30 56 38L50 42L44 38C34 30 20 26 8 28Z", c), path("M46 34H54L56 38L50 42L44 38Z", "#eceff1"), path("M50 34L53 36L50 37Z", "#f2b134")],
  },
};

const FALLBACK: BirdSet = { colour: "#607d8b", bird: SETS.A?.bird ?? (() => []) };

/** The set's colour (A to H). */
export function birdColour(letter: string): string {
  return (SETS[letter.toUpperCase()] ?? FALLBACK).colour;
}

/** Land birds stand on grass under a pale sky; water birds on water. */
function habitatGround(habitat: string): Shape[] {
  return habitat === "water"
    ? [rect(0, 0, 100, 64, "#e3f0f7"), path("M0 50C10 47 20 53 30 50S50 47 60 50S80 53 100 50V64H0Z", "#8cc0de")]
    : [rect(0, 0, 100, 64, "#eef5e4"), path("M0 56C30 52 70 52 100 56V64H0Z", "#a5c882")];
}

export function bird(letter: string, habitat: string): SVGElement {
  const set = SETS[letter.toUpperCase()] ?? FALLBACK;
  return picture("bird", [...habitatGround(habitat), ...set.bird(set.colour)]);
}

/** The Owl: face on, under the moon, on a branch. */
export function owl(): SVGElement {
  return picture("owl", [
    rect(0, 0, 100, 64, "#1f2a44"),
    circle(84, 12, 7, "#f5e6a8"),
    circle(87, 10, 6, "#1f2a44"),
    line("M10 58H90", "#5d4037", 3.5),
    path("M50 10C34 10 28 22 30 36C32 50 40 58 50 58C60 58 68 50 70 36C72 22 66 10 50 10Z", "#a1745a"),
    path("M34 15L31 4L43 12ZM66 15L69 4L57 12Z", "#a1745a"),
    path("M38 40C42 44 58 44 62 40C60 52 40 52 38 40Z", "#e8d2b5"),
    circle(42, 27, 8, "#f3e4c8"),
    circle(58, 27, 8, "#f3e4c8"),
    circle(42, 27, 3.8, "#1a1a1a"),
    circle(58, 27, 3.8, "#1a1a1a"),
    path("M47.5 33H52.5L50 39Z", "#e0a030"),
  ]);
}
