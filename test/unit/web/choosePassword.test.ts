// The checks "Choose your own password" (web/play/src/screens/choosePassword.ts) makes before asking
// the server: too short, the two boxes differ, or the handed-out password kept.
import { describe, expect, it } from "vitest";
import { newPasswordProblem } from "../../../web/play/src/screens/choosePassword.js";

describe("newPasswordProblem", () => {
  it("accepts a new password typed twice that differs from the given one", () => {
    expect(newPasswordProblem("bako-mitu-resa-47", "rainbow-snake-9", "rainbow-snake-9")).toBeNull();
  });
  it("names each problem in words a student reads, the length first", () => {
    expect(newPasswordProblem("bako-mitu-resa-47", "short", "short")).toBe("Your new password needs at least 8 characters.");
    expect(newPasswordProblem("bako-mitu-resa-47", "rainbow-snake-9", "rainbow-snake-8")).toMatch(/not the same/);
    expect(newPasswordProblem("bako-mitu-resa-47", "bako-mitu-resa-47", "bako-mitu-resa-47")).toMatch(/must differ from the one you were given/);
  });
});
