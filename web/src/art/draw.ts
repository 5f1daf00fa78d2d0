/** The few SVG shapes every card's picture is made of. Each game's art is compact path data
 * drawn for Parlour (no artwork is copied), in a 100 × 64 picture box. */

import { s } from "../h";

export type Shape = SVGElement;

/** A filled path; `stroke` outlines it. */
export function path(d: string, fill: string, stroke?: string, width = 1.5): Shape {
  return s("path", stroke ? { d, fill, stroke, "stroke-width": width, "stroke-linecap": "round", "stroke-linejoin": "round" } : { d, fill });
}

/** An unfilled line (a leg, a spoke, a reed). */
export function line(d: string, stroke: string, width = 2): Shape {
  return path(d, "none", stroke, width);
}

export function circle(cx: number, cy: number, r: number, fill: string, stroke?: string): Shape {
  return s("circle", stroke ? { cx, cy, r, fill, stroke, "stroke-width": 1.5 } : { cx, cy, r, fill });
}

export function ellipse(cx: number, cy: number, rx: number, ry: number, fill: string): Shape {
  return s("ellipse", { cx, cy, rx, ry, fill });
}

export function rect(x: number, y: number, width: number, height: number, fill: string, rx = 0): Shape {
  return s("rect", { x, y, width, height, fill, rx });
}

/** The picture: an SVG whose drawing sits in one `[data-art]` group (the tests look for it).
 * `box` crops it (a TRIO card's small heads show only the top of a portrait). */
export function picture(kind: string, shapes: Shape[], box = "0 0 100 64"): SVGElement {
  return s("svg", { viewBox: box, class: "card-art", "aria-hidden": "true", focusable: "false" }, s("g", { "data-art": kind }, ...shapes));
}
