/** History-API routing under /play: each screen is a page function given the path's
 * parameters and a signal that aborts when the reader goes elsewhere (closing its streams). */

export type Page = (root: HTMLElement, params: Record<string, string>, signal: AbortSignal) => Promise<void> | void;

const routes: [RegExp, string[], Page][] = [];
let current: AbortController | null = null;
let root: HTMLElement | null = null;

/** Registers a page for a pattern such as `/play/games/:id`. */
export function route(pattern: string, page: Page): void {
  const names: string[] = [];
  const source = pattern.replace(/:([a-z]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  routes.push([new RegExp(`^${source}/?$`), names, page]);
}

/** Goes to `path` without reloading. */
export function navigate(path: string, replaceEntry = false): void {
  if (replaceEntry) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  void show();
}

/** Starts routing into `element`: links marked `data-link` navigate in place. */
export function start(element: HTMLElement): void {
  root = element;
  window.addEventListener("popstate", () => void show());
  document.addEventListener("click", (event) => {
    const link = (event.target as Element | null)?.closest?.("a[data-link]");
    if (link instanceof HTMLAnchorElement && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      navigate(link.pathname + link.search);
    }
  });
  void show();
}

async function show(): Promise<void> {
  if (!root) return;
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const path = location.pathname;
  for (const [pattern, names, page] of routes) {
    const match = pattern.exec(path);
    if (match) {
      const params: Record<string, string> = {};
      names.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1] ?? "")));
      root.replaceChildren();
      window.scrollTo(0, 0);
      await page(root, params, controller.signal);
      return;
    }
  }
  navigate("/play", true);
}
