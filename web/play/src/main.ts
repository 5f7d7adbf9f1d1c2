// Entry point of the /play reference client: restores the session, registers the screens and
// starts the router.
import { CHOOSE_PASSWORD, defineScreen, route } from "./app.js";
import { session } from "./session.js";
import { signInScreen } from "./screens/signIn.js";
import { homeScreen } from "./screens/home.js";
import { boardsScreen } from "./screens/boards.js";
import { bossScreen } from "./screens/boss.js";
import { modesScreen } from "./screens/modes.js";
import { pvpScreen } from "./screens/pvp.js";
import { slitherScreen } from "./screens/slither.js";
import { joinClassScreen } from "./screens/joinClass.js";
import { teacherScreen } from "./screens/teacher.js";
import { adminScreen } from "./screens/admin.js";
import { choosePasswordScreen } from "./screens/choosePassword.js";

defineScreen("signin", signInScreen);
defineScreen("home", homeScreen);
defineScreen("modes", modesScreen);
defineScreen("boss", bossScreen);
defineScreen("pvp", pvpScreen);
defineScreen("slither", slitherScreen);
defineScreen("boards", boardsScreen);
defineScreen("join", joinClassScreen);
defineScreen("teacher", teacherScreen);
defineScreen("admin", adminScreen);
defineScreen(CHOOSE_PASSWORD, choosePasswordScreen);

window.addEventListener("hashchange", () => void route());
session.restore().then(
  () => route(),
  (err) => {
    document.getElementById("main")!.textContent = `The server did not answer: ${(err as Error).message}`;
  },
);
