import { describe, expect, it } from "vitest";
import { signInName, usernameKey } from "../../src/auth/usernames.js";

describe("usernames: what a typed name looks up and the key its limits count under", () => {
  it("folds padding, case, Unicode spaces, invisible marks and full-width letters into one key", () => {
    const spellings = [" Ada", "ADA\u00a0", "\u3000ada", "a\u200bda", "\uff41\uff44\uff41", "ada\ufeff", "\u2003Ada\u2009", "a\u00adda"];
    for (const s of spellings) expect(usernameKey(s), JSON.stringify(s)).toBe("ada");
    expect(usernameKey("Straße")).toBe(usernameKey("STRASSE"));
    expect(usernameKey("ada")).not.toBe(usernameKey("ada2"));
  });

  it("looks up ASCII names with white space around them dropped and compatibility forms read as what they stand for", () => {
    expect(signInName("  Ada\u00a0")).toBe("Ada");
    expect(signInName("\uff41\uff44\uff41")).toBe("ada");
    expect(signInName("\u212Aate")).toBe("Kate"); // the Kelvin sign is a K under NFKC
    // Non-ASCII names no account can have (stored names are ASCII): never left to the database's case mapping.
    expect(signInName("\u0130nes")).toBeUndefined();
    expect(signInName("a da")).toBeUndefined();
    expect(signInName("   ")).toBeUndefined();
  });

  it("every name sign-in reaches shares the key of the stored name it matches", () => {
    const stored = "Grace_H";
    for (const typed of [" grace_h ", "GRACE_H\u3000", "\uff27\uff52\uff41\uff43\uff45\uff3f\uff28"]) {
      const looked = signInName(typed)!;
      expect(looked.toLowerCase()).toBe(stored.toLowerCase());
      expect(usernameKey(typed)).toBe(usernameKey(stored));
    }
  });
});
