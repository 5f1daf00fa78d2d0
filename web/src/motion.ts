/** Cards that move: the table is drawn afresh on every change, so after each drawing the
 * cards are compared with the last one's. A card that was elsewhere slides from where it
 * was (a card laid from the hand, picked up from the row); one that was nowhere fades in (a
 * card turned up, a lay put down). A row scrolled sideways (the hand on a phone) keeps its
 * place. Nothing moves for a reader who asks for reduced motion. */

interface Seen {
  /** Where it was, in page coordinates. */
  x: number;
  y: number;
  /** The row it was in (its label). */
  place: string;
}

let drawn: { element: HTMLElement; key: string }[] = [];
let last = new Map<string, Seen>();
const scrolled = new Map<string, number>();

/** Marks `element` (a card, or a back named by its label) as drawn in this drawing. */
export function track(element: HTMLElement, key: string): void {
  if (drawn.length === 0) queueMicrotask(settle);
  drawn.push({ element, key });
}

function reduced(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The row a card sits in, by its label. */
function placeOf(element: HTMLElement): string {
  const row = element.closest("[aria-label].card-row, .pile, section");
  return row ? `${row.className}|${row.getAttribute("aria-label") ?? ""}` : "";
}

/** Rows keep their sideways scroll across drawings. */
function keepScroll(): void {
  for (const row of document.querySelectorAll<HTMLElement>(".card-row[aria-label]")) {
    const label = row.getAttribute("aria-label") ?? "";
    const left = scrolled.get(label);
    if (left) row.scrollLeft = left;
    row.addEventListener("scroll", () => scrolled.set(label, row.scrollLeft), { passive: true });
  }
}

function settle(): void {
  const now = new Map<string, Seen>();
  const moving = !reduced();
  keepScroll();
  for (const { element, key } of drawn) {
    if (!element.isConnected) continue;
    const box = element.getBoundingClientRect();
    const seen = { x: box.left + scrollX, y: box.top + scrollY, place: placeOf(element) };
    now.set(key, seen);
    const before = last.get(key);
    // Nothing moves on the first drawing of a page, or for a reader who asked for stillness.
    if (!moving || last.size === 0) continue;
    if (!before) {
      element.classList.add("fresh");
    } else if (before.place !== seen.place && typeof element.animate === "function") {
      const dx = before.x - seen.x;
      const dy = before.y - seen.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) element.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 260, easing: "ease-out" });
    }
  }
  drawn = [];
  last = now;
}
