// GIRL's moves as the typed programs make them.

import type { components } from "./parlour.js";

type Schemas = components["schemas"];

/** A legal action made into a move: each `{choose: k, from}` becomes the first k of those ids. */
export function moveFrom(legal: Schemas["GirlLegalAction"]): Schemas["GirlAction"] {
  switch (legal.type) {
    case "turn_up":
      return { type: "turn_up" };
    case "pass":
      return { type: "pass" };
    case "expose":
      return { type: "expose", card: legal.card };
    case "lay":
      return { type: "lay", cards: legal.cards.from.slice(0, legal.cards.choose) };
  }
}
