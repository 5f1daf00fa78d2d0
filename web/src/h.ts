/** A small DOM builder: the client has no framework, so every screen is a function that
 * returns fresh nodes from the latest data and replaces the old ones. */

export type Child = Node | string | number | null | undefined | false | Child[];

export interface Attrs {
  class?: string;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
  [attribute: string]: unknown;
}

/** An element with attributes, listeners and children. Attributes set to `false`, `null`
 * or `undefined` are left out; `true` sets an empty attribute. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (name === "on") {
      for (const [event, listener] of Object.entries(value as Record<string, EventListener>)) {
        element.addEventListener(event, listener);
      }
    } else if (name === "value" && "value" in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (name === "checked" && "checked" in element) {
      (element as HTMLInputElement).checked = Boolean(value);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children, flattening arrays and skipping empty ones. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (Array.isArray(child)) {
      append(parent, child);
    } else if (child instanceof Node) {
      parent.appendChild(child);
    } else if (child !== null && child !== undefined && child !== false) {
      parent.appendChild(document.createTextNode(String(child)));
    }
  }
}

/** Replaces everything inside `parent` with `children`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element (cards are drawn as SVG). */
export function s(tag: string, attrs: Record<string, string | number>, ...children: (SVGElement | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    element.setAttribute(name, String(value));
  }
  for (const child of children) {
    element.append(child);
  }
  return element;
}
