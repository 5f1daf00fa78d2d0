/** GOOGLY: a batting card shows the bat and the ball on its way (higher for more runs), an
 * appeal shows the umpire; a bowling card shows the wicket: standing for not out, broken for
 * an out, the catch for caught, the ball off the pad for a leg bye. */

import { circle, line, path, picture, rect, type Shape } from "./draw";

const GRASS = (): Shape[] => [rect(0, 0, 100, 64, "#e9f3dc"), path("M0 54C30 51 70 51 100 54V64H0Z", "#8cbf6a")];
const WILLOW = "#e4c27e";
const RED = "#b71c1c";

function ball(x: number, y: number, r = 4.5): Shape[] {
  return [circle(x, y, r, RED), path(`M${x - r * 0.7} ${y - r * 0.7}Q${x} ${y} ${x + r * 0.7} ${y + r * 0.7}`, "none", "#f5d0c5", 0.8)];
}

function bat(): Shape[] {
  return [path("M62 6L68 8L61 28L56 26Z", "#7b4a2a"), path("M55 25L63 29L48 58C46 61 39 59 40 55Z", WILLOW, "#a07b3a", 1)];
}

/** The bat, and the ball flying off it: a long arc over the rope for a six. */
export function batting(runs: number): SVGElement {
  const height = Math.min(runs, 6) * 7;
  const arc = line(`M46 46Q24 ${40 - height} 10 ${44 - height / 2}`, "#6a8f4f", 1.2);
  arc.setAttribute("stroke-dasharray", "3 3");
  return picture("batting", [...GRASS(), ...(runs >= 4 ? [line("M0 50H100", "#fff", 1.5)] : []), arc, ...bat(), ...ball(10, 44 - height / 2)]);
}

/** How's That? The umpire in his white coat and hat. */
export function appeal(): SVGElement {
  return picture("appeal", [
    ...GRASS(),
    path("M38 58L42 30C44 26 56 26 58 30L62 58Z", "#fafafa", "#9e9e9e", 1),
    circle(50, 20, 6.5, "#f6d5bd"),
    path("M40 16C42 12 58 12 60 16L64 17C60 19 40 19 36 17Z", "#fafafa", "#9e9e9e", 0.8),
    line("M57 32L70 14", "#fafafa", 4),
    line("M70 14L71 7", "#f6d5bd", 2.4),
  ]);
}

function stumps(broken: boolean): Shape[] {
  const sticks = [rect(40, 22, 4, 34, WILLOW), rect(48, 22, 4, 34, WILLOW), rect(56, 22, 4, 34, WILLOW)];
  const bails = broken
    ? [rect(30, 10, 9, 3, WILLOW), rect(60, 6, 9, 3, WILLOW)]
    : [rect(40, 20, 10, 2.6, WILLOW), rect(50, 20, 10, 2.6, WILLOW)];
  for (const bail of bails) bail.setAttribute("stroke", "#a07b3a");
  if (broken) {
    sticks[1]?.setAttribute("transform", "rotate(-8 50 56)");
    bails[0]?.setAttribute("transform", "rotate(-30 34 11)");
    bails[1]?.setAttribute("transform", "rotate(25 64 7)");
  }
  return [...sticks, ...bails];
}

/** The wicket for a bowling card, as its verdict leaves it. */
export function bowling(out: string | null | undefined, legBye: boolean): SVGElement {
  if (out === "caught") {
    return picture("caught", [...GRASS(), ...stumps(false), path("M64 30C66 40 76 44 84 38L86 26C80 32 72 32 68 26Z", "#f6d5bd", "#b08a70", 1), ...ball(76, 30)]);
  }
  if (out) return picture("out", [...GRASS(), ...stumps(true), ...ball(50, 48)]);
  if (legBye) return picture("leg-bye", [...GRASS(), ...stumps(false), path("M22 24H32V54H20Z", "#fafafa", "#9e9e9e", 1), line("M26 30H30M26 36H30M26 42H30", "#bdbdbd", 1), ...ball(14, 34), line("M8 38L2 46", "#6a8f4f", 1.2)]);
  return picture("not-out", [...GRASS(), ...stumps(false), ...ball(78, 44)]);
}
