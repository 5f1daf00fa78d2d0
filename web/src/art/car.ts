/** The CAR Game's six classes of car, each its own silhouette and colour, and the BLUEBIRD:
 * the record car with its bird. */

import { circle, line, path, picture, rect, type Shape } from "./draw";

interface CarClass {
  colour: string;
  /** The class as the TRIO cards' panel prints it ("Record", "Vin/Vet"). */
  short: string;
  body: (colour: string) => Shape[];
}

/** A wheel: tyre, hub, and spokes on the old cars. */
function wheel(x: number, y: number, r: number, spokes = false): Shape[] {
  const shapes = [circle(x, y, r, "#222"), circle(x, y, r * 0.5, "#cfd4d8")];
  if (spokes) {
    shapes.push(circle(x, y, r * 0.8, "#e8dcc0"), line(`M${x - r * 0.8} ${y}H${x + r * 0.8}M${x} ${y - r * 0.8}V${y + r * 0.8}M${x - r * 0.56} ${y - r * 0.56}L${x + r * 0.56} ${y + r * 0.56}M${x - r * 0.56} ${y + r * 0.56}L${x + r * 0.56} ${y - r * 0.56}`, "#555", 1), circle(x, y, r * 0.2, "#555"));
  }
  return shapes;
}

const ROAD = (): Shape => rect(0, 58, 100, 6, "#9aa3a8");

const CLASSES: Record<string, CarClass> = {
  // A cigar-shaped single-seater on open wheels, number roundel on its flank.
  Racing: {
    colour: "#c62828",
    short: "Racing",
    body: (c) => [path("M8 46C10 38 28 36 42 36L52 30H60L64 36C80 36 92 40 94 46L92 50H12Z", c), circle(56, 30, 4.5, "#f2f2f2"), circle(38, 43, 4.5, "#fff"), ...wheel(24, 50, 8), ...wheel(80, 50, 8)],
  },
  // A low open two-seater with a raked windscreen.
  Sports: {
    colour: "#2e7d32",
    short: "Sports",
    body: (c) => [path("M6 48C6 40 18 38 30 38L38 32H54L60 38C78 38 92 40 94 48L94 52H6Z", c), line("M40 32L46 26", "#cfe8f5", 2.5), circle(47, 31, 3.5, "#5d4037"), ...wheel(25, 52, 7), ...wheel(76, 52, 7)],
  },
  // A long streamliner with a tail fin, wheels hidden in spats.
  "Record-breaking": {
    colour: "#6d7f8c",
    short: "Record",
    body: (c) => [path("M3 46C8 32 38 29 68 30C86 31 97 39 97 46C97 50 93 52 86 52H10C5 52 3 50 3 46Z", c), path("M10 40L5 24L18 36Z", c), path("M58 31C62 26 70 26 74 31Z", "#cfe8f5"), line("M12 46H90", "#fff", 1.2), ...wheel(24, 53, 5), ...wheel(78, 53, 5)],
  },
  // A tall saloon with a proud radiator: a limousine.
  Luxury: {
    colour: "#5a1a2b",
    short: "Luxury",
    body: (c) => [path("M4 50L6 39L22 36L32 22H70L80 36L95 38L96 50Z", c), path("M36 25H50V35H29ZM53 25H67L74 35H53Z", "#cfe8f5"), rect(90, 38, 5, 10, "#d9d9d9"), circle(92, 35, 2, "#e6b800"), ...wheel(24, 51, 7.5), ...wheel(78, 51, 7.5)],
  },
  // An open tourer, hood folded, trunk strapped on behind.
  Touring: {
    colour: "#d08b1c",
    short: "Touring",
    body: (c) => [path("M8 48L10 37H32L37 30H45L49 37H88L94 43V50H8Z", c), path("M56 37C58 28 71 28 75 37Z", "#6d4c41"), rect(2, 36, 9, 10, "#6d4c41", 1.5), line("M37 30L41 24", "#cfe8f5", 2.5), ...wheel(26, 50, 7.5), ...wheel(76, 50, 7.5)],
  },
  // A high veteran car: a carriage body, brass lamp, spoked wheels.
  "Vintage/Veteran": {
    colour: "#2f5d50",
    short: "Vin/Vet",
    body: (c) => [path("M16 46L18 30H44L46 18H68L70 30L84 33L86 46Z", c), rect(44, 14, 26, 4, "#222"), circle(88, 33, 3.2, "#e6b800"), line("M36 30L30 20", "#222", 2), ...wheel(28, 48, 10, true), ...wheel(74, 48, 10, true)],
  },
};

const FALLBACK: CarClass = { colour: "#607d8b", short: "Car", body: (c) => [path("M8 48L12 36H88L92 48Z", c), ...wheel(26, 50, 7), ...wheel(74, 50, 7)] };

function carClass(name: string): CarClass {
  return CLASSES[name] ?? FALLBACK;
}

export function carColour(name: string): string {
  return carClass(name).colour;
}

/** The class's name as the TRIO panel abbreviates it. */
export function carShort(name: string): string {
  return carClass(name).short;
}

/** The class's car on the road. */
export function car(name: string): SVGElement {
  const cls = carClass(name);
  return picture("car", [ROAD(), ...cls.body(cls.colour)]);
}

/** Just the car, smaller, for a TRIO card's panel. */
export function carIcon(name: string): SVGElement {
  const cls = carClass(name);
  return picture("car", cls.body(cls.colour), "0 12 100 52");
}

/** The BLUEBIRD card: the blue record car, and a bluebird flying over it. */
export function bluebird(): SVGElement {
  return picture("joker", [
    ROAD(),
    path("M3 48C8 36 38 33 68 34C86 35 97 41 97 48C97 51 93 53 86 53H10C5 53 3 51 3 48Z", "#1f5fbf"),
    path("M60 35C63 31 70 31 73 35Z", "#cfe8f5"),
    line("M12 48H90", "#fff", 1.2),
    ...wheel(24, 54, 4.5),
    ...wheel(78, 54, 4.5),
    path("M30 18C38 12 46 12 50 18C56 8 66 6 74 8C66 12 60 16 56 22C52 26 44 26 38 22L26 24Z", "#2a7de1"),
    path("M50 18C52 22 56 22 58 20", "#f4a261"),
    circle(36, 18, 1.3, "#fff"),
  ]);
}
