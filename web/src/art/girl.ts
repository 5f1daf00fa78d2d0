/** GIRL's six heroines as small portraits: one face, and each her own hair, hat or crown
 * and colour, so a card is known at a glance before its name is read. */

import { circle, ellipse, line, path, picture, rect, type Shape } from "./draw";

interface Heroine {
  /** Her colour: the card's band and her dress. */
  colour: string;
  hair: string;
  /** Drawn behind the face (long hair, plaits). */
  back: (hair: string) => Shape[];
  /** Drawn over the face (fringe, hat, bow, tiara). */
  front: (hair: string) => Shape[];
}

const SKIN = "#f6d5bd";

const HEROINES: Record<string, Heroine> = {
  // A blonde bob and a school beret.
  Wendy: {
    colour: "#2f6db5",
    hair: "#e7bf4f",
    back: (hair) => [path("M35 32C33 8 67 8 65 32L67 44C60 46 40 46 33 44Z", hair)],
    front: (hair) => [path("M37 26C38 12 62 12 63 26C56 19 45 19 37 26Z", hair), path("M34 15C38 4 66 4 68 13C60 10 44 10 34 15Z", "#1d3f6e")],
  },
  // Black hair in a swinging ponytail.
  Jinx: {
    colour: "#c0392b",
    hair: "#262626",
    back: (hair) => [path("M37 30C35 10 65 10 63 30Z", hair), path("M62 16C78 12 84 32 74 46C74 34 70 26 61 24Z", hair)],
    front: (hair) => [path("M37 27C37 12 63 12 63 22C55 16 45 20 37 27Z", hair), circle(62, 18, 2.6, "#c0392b")],
  },
  // Short auburn curls.
  Robbie: {
    colour: "#2e7d4f",
    hair: "#9c4a1e",
    back: () => [],
    front: (hair) => [circle(40, 20, 6, hair), circle(47, 14, 6.5, hair), circle(55, 14, 6.5, hair), circle(61, 20, 6, hair), circle(37, 27, 4, hair), circle(63, 27, 4, hair)],
  },
  // Long brown hair with a big bow.
  Penny: {
    colour: "#7b4fa0",
    hair: "#6b4226",
    back: (hair) => [path("M35 28C33 6 67 6 65 28L69 56C60 59 40 59 31 56Z", hair)],
    front: (hair) => [path("M37 27C39 12 63 9 63 25C55 20 46 16 37 27Z", hair), path("M58 11L70 4L69 18ZM58 11L48 3L50 17Z", "#e85d9a"), circle(58, 11, 2.6, "#b83372")],
  },
  // A ballerina's bun and tiara.
  Belle: {
    colour: "#d6589a",
    hair: "#1e1e1e",
    back: (hair) => [circle(50, 9, 7, hair)],
    front: (hair) => [path("M37 27C37 12 63 12 63 27C58 18 42 18 37 27Z", hair), path("M41 17L44 11L47 15L50 8L53 15L56 11L59 17Z", "#e6b800", "#a07c00", 0.8)],
  },
  // Ginger plaits, round spectacles and a straw boater.
  "Lettice Leefe": {
    colour: "#5b8a2a",
    hair: "#d9792b",
    back: (hair) => [path("M37 28C32 40 32 50 34 58L39 58C37 48 39 40 42 31Z", hair), path("M63 28C68 40 68 50 66 58L61 58C63 48 61 40 58 31Z", hair)],
    front: (hair) => [
      path("M38 25C40 16 60 16 62 25C55 21 45 21 38 25Z", hair),
      ellipse(50, 16, 19, 3.6, "#e9d27a"),
      path("M39 16L41 5L59 5L61 16Z", "#e9d27a"),
      rect(40, 11, 20, 3, "#5b8a2a"),
      circle(45, 29, 3.6, "none", "#333"),
      circle(55, 29, 3.6, "none", "#333"),
      line("M48.6 29H51.4", "#333", 1.2),
    ],
  },
};

const FALLBACK: Heroine = { colour: "#777", hair: "#555", back: () => [], front: (hair) => [path("M37 26C38 12 62 12 63 26Z", hair)] };

function heroine(name: string): Heroine {
  return HEROINES[name] ?? FALLBACK;
}

/** Her colour, for the card's band. */
export function heroineColour(name: string): string {
  return heroine(name).colour;
}

function portraitShapes(name: string): Shape[] {
  const her = heroine(name);
  return [
    ...her.back(her.hair),
    path("M24 64C26 50 38 45 50 45C62 45 74 50 76 64Z", her.colour),
    rect(46, 38, 8, 9, SKIN),
    ellipse(50, 29, 12, 13.5, SKIN),
    circle(45.5, 29, 1.5, "#2a2a2a"),
    circle(54.5, 29, 1.5, "#2a2a2a"),
    circle(43, 34, 2, "#f2b3a6"),
    circle(57, 34, 2, "#f2b3a6"),
    line("M46.5 36Q50 39 53.5 36", "#b0413e", 1.4),
    ...her.front(her.hair),
  ];
}

/** Her portrait, head and shoulders. */
export function portrait(name: string): SVGElement {
  return picture("heroine", portraitShapes(name));
}

/** Just her head, for the three small pictures on a TRIO card. */
export function head(name: string): SVGElement {
  return picture("heroine", portraitShapes(name), "26 0 48 48");
}

/** The GIRL card: the magazine's star, bright and unlike any heroine. */
export function girlStar(): SVGElement {
  const rays = Array.from({ length: 12 }, (_, i) => {
    const a = (i * Math.PI) / 6;
    const x = (r: number, da = 0) => (50 + r * Math.cos(a + da)).toFixed(1);
    const y = (r: number, da = 0) => (32 + r * Math.sin(a + da)).toFixed(1);
    return `M${x(12, -0.2)} ${y(12, -0.2)}L${x(30)} ${y(30)}L${x(12, 0.2)} ${y(12, 0.2)}Z`;
  }).join("");
  return picture("joker", [path(rays, "#f7c948"), circle(50, 32, 15, "#d62839"), circle(50, 32, 11, "#fff"), path("M44 36C44 26 56 26 56 36L58 44H42Z", "#d62839"), circle(50, 28, 5, "#f6d5bd")]);
}
