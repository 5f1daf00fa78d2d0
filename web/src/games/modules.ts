/** Each game's module, by catalogue id. */

import type { GameModule } from "./kit";
import { trio } from "./trio";
import { birds } from "./birds";
import { england } from "./england";
import { googly } from "./googly";

const MODULES: Record<string, GameModule> = { girl: trio, car: trio, "british-birds": birds, "history-of-england": england, googly };

export function moduleFor(game: string): GameModule {
  return MODULES[game] ?? trio;
}
