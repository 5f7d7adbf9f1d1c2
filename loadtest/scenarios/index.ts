// The scenarios `npm run loadtest -- NAME` knows. A new scenario: a module exporting a Scenario
// (loadtest/harness/scenario.ts), listed here.
import type { Scenario } from "../harness/scenario.js";
import { aim } from "./aim.js";
import { boss } from "./boss.js";
import { http } from "./http.js";
import { pvp } from "./pvp.js";
import { slitherrush } from "./slitherrush.js";

export const scenarios: Record<string, Scenario> = { boss, pvp, http, slitherrush, aim };
