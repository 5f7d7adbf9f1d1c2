import { describe, expect, it } from "vitest";
import { failedPasswordRules, passwordRulesMessage, PASSWORD_RULES } from "../../../src/workspace/passwordRules.js";

const failed = (password: string) => failedPasswordRules(password).map((r) => r.id);

describe("password rules", () => {
  it("has the spec's five rules, in order", () => {
    expect(PASSWORD_RULES.map((r) => r.id)).toEqual(["min_length", "uppercase", "lowercase", "digit", "special"]);
  });

  it.each([
    ["NewP@ssw0rd", "the platform README's example"],
    ["Abcdef1!", "exactly 8 characters"],
    ["correct Horse 9 battery!", "spaces inside"],
    ["Zz9~Zz9~Zz9~", "tilde as the special character"],
  ])("accepts %s (%s)", (password) => {
    expect(failed(password)).toEqual([]);
  });

  // Each rule failing alone: every other rule holds.
  it.each([
    ["Abcde1!", "min_length"],
    ["newp@ssw0rd", "uppercase"],
    ["NEWP@SSW0RD", "lowercase"],
    ["NewP@ssword", "digit"],
    ["NewPassw0rd", "special"],
  ])("%s fails only %s", (password, rule) => {
    expect(failed(password)).toEqual([rule]);
  });

  it.each([
    ["", ["min_length", "uppercase", "lowercase", "digit", "special"]],
    ["abc", ["min_length", "uppercase", "digit", "special"]],
    ["password", ["uppercase", "digit", "special"]],
    ["PASSWORD1", ["lowercase", "special"]],
    ["12345678", ["uppercase", "lowercase", "special"]],
    ["!!!!!!!!", ["uppercase", "lowercase", "digit"]],
    ["Ab1!", ["min_length"]],
    ["        ", ["uppercase", "lowercase", "digit", "special"]],
  ])("%j fails %j", (password, rules) => {
    expect(failed(password)).toEqual(rules);
  });

  describe("unicode", () => {
    it("counts code points, not UTF-16 units: an emoji is one character", () => {
      expect(failed("Aa1😀😀😀😀😀")).toEqual([]);
      expect("Aa1😀😀😀".length).toBe(9);
      expect(failed("Aa1😀😀😀")).toEqual(["min_length"]);
    });

    it("treats accented and non-Latin cased letters as letters", () => {
      expect(failed("Ünïcödé1!")).toEqual([]);
      expect(failed("ПАРОЛЬ1!")).toEqual(["lowercase"]);
      expect(failed("пароль12!")).toEqual(["uppercase"]);
    });

    it("normalises first: A + combining ring is one uppercase letter, and the mark is not special", () => {
      const decomposed = "A\u030Abcdefg1";
      expect(decomposed.length).toBe(9);
      expect(failed(decomposed)).toEqual(["special"]);
      expect("A\u030Abcdef1".length).toBe(8);
      expect(failed("A\u030Abcdef1")).toEqual(["min_length", "special"]);
    });

    it("counts digits of other scripts, but not letters without case as upper or lower", () => {
      expect(failed("Abcdefg٣!")).toEqual([]);
      expect(failed("密码密码密码密码1!")).toEqual(["uppercase", "lowercase"]);
    });

    it("does not count whitespace, control or zero-width characters as special", () => {
      expect(failed("Abcdefg1 \t")).toEqual(["special"]);
      expect(failed("Abcdefg1\u200B")).toEqual(["special"]);
      expect(failed("Abcdefg1€")).toEqual([]);
    });
  });

  it("names every failed rule in the message", () => {
    expect(passwordRulesMessage(failedPasswordRules("abc"))).toBe(
      "Password does not meet requirements: at least 8 characters; at least one uppercase letter; at least one digit; at least one special character (e.g. ! @ # $)",
    );
  });
});
