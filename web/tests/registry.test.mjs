// The page's tables of games agree with the server's catalogue: every game the server offers
// has its page module, its name and its "How to play", and the page lists no game the server
// does not offer. A game added to the catalogue without them fails here, instead of being
// drawn by another game's page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BASE } from "./helpers.mjs";

const src = new URL("../src/", import.meta.url);

/** The keys of the object literal assigned to `name` in a source file. */
function keysOf(file, name) {
  const text = readFileSync(new URL(file, src), "utf8");
  const start = text.indexOf(`const ${name}`);
  assert.ok(start >= 0, `${file} has no ${name}`);
  const open = text.indexOf("{", text.indexOf("=", start));
  let depth = 0;
  let end = open;
  for (; end < text.length; end++) {
    if (text[end] === "{") depth++;
    if (text[end] === "}" && --depth === 0) break;
  }
  const body = text.slice(open + 1, end);
  // The entries at the top level: split at commas outside brackets, braces and strings.
  const entries = [];
  depth = 0;
  let quote = null;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if ("{[(".includes(c)) depth++;
    else if ("}])".includes(c)) depth--;
    else if (c === "," && depth === 0) {
      entries.push(body.slice(from, i));
      from = i + 1;
    }
  }
  entries.push(body.slice(from));
  // Each entry's key: before its first ":" (quoted or not), or the whole of a shorthand entry.
  const keys = entries
    .map((entry) => entry.replace(/\/\/.*$/gm, "").trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const key = /^(?:"([^"]+)"|'([^']+)'|([A-Za-z_$][\w$]*))\s*(?::|$)/.exec(entry);
      assert.ok(key, `cannot read the key of ${entry.slice(0, 40)} in ${file}`);
      return key[1] ?? key[2] ?? key[3];
    });
  return [...new Set(keys)].sort();
}

test("the page has a module, a name and a How to play for exactly the games the server offers", async () => {
  const response = await fetch(`${BASE}/v1/catalog`);
  assert.equal(response.status, 200);
  const catalogue = await response.json();
  const games = (catalogue.games ?? catalogue).map((g) => g.id).sort();
  assert.ok(games.length >= 5, JSON.stringify(games));
  assert.deepEqual(keysOf("games/modules.ts", "MODULES"), games, "games/modules.ts MODULES");
  assert.deepEqual(keysOf("ui.ts", "GAME_NAMES"), games, "ui.ts GAME_NAMES");
  assert.deepEqual(keysOf("games/help.ts", "HELP"), games, "games/help.ts HELP");
});
