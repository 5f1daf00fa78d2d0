/** Parlour's web client: accounts, the lobby and inbox, a table for each game, replay and
 * audit, and the page where a player lets an app in, all through the public API (src/api.ts). */

import { navigate, route, start } from "./router";
import { welcome, signInPage } from "./pages/welcome";
import { home } from "./pages/home";
import { newGame } from "./pages/new-game";
import { accountPage } from "./pages/account";
import { tablePage } from "./pages/table";
import { replayPage } from "./pages/replay";
import { seriesPage } from "./pages/series";
import { matchPage } from "./pages/match";
import { authorizePage } from "./pages/authorize";
import { keepCountdownsRunning } from "./ui";
import { followPushClicks } from "./push";

route("/play", home);
route("/play/welcome", welcome);
route("/play/sign-in", signInPage);
route("/play/new", newGame);
route("/play/account", accountPage);
route("/play/games/:id", tablePage);
route("/play/games/:id/replay", replayPage);
route("/play/googly/series", seriesPage);
route("/play/matches/:id", matchPage);
route("/play/authorize", authorizePage);

keepCountdownsRunning();
followPushClicks((url) => navigate(url));

const root = document.getElementById("app");
if (root) start(root);
