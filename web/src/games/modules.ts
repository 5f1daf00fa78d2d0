/** Each game's module, by catalogue id. */

import type { GameModule } from "./kit";
import { trio } from "./trio";
import { birds } from "./birds";
import { england } from "./england";
import { googly } from "./googly";

const MODULES: Record<string, GameModule> = { girl: trio, car: trio, "british-birds": birds, "history-of-england": england, googly };

/** The page of `game`; a game this page does not know is an error, never another game's page
 * (`tests/registry.test.mjs` holds this table to the server's catalogue). */
export function moduleFor(game: string): GameModule {
  const found = MODULES[game];
  if (!found) throw new Error(`This page cannot show ${game} yet: reload it to get the latest.`);
  return found;
}
