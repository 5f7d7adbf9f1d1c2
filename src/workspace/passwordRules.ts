// The platform's five password rules (spec, Limits). Pure: returns every rule a password breaks.
//
// Characters are Unicode code points after NFC normalisation, so "Ä" is one uppercase letter whether
// typed precomposed or as A + combining diaeresis, and an emoji is one special character. Letters
// without case (e.g. CJK) count as letters but neither upper- nor lowercase. Digits are decimal
// digits of any script. "Special" means anything that is not a letter, a combining mark, a number,
// whitespace, or a control/format character: punctuation, symbols, emoji.

export type PasswordRuleId = "min_length" | "uppercase" | "lowercase" | "digit" | "special";

export interface PasswordRule {
  id: PasswordRuleId;
  /** How the rule reads in an error message. */
  description: string;
  holds(password: string): boolean;
}

export const MIN_PASSWORD_CHARACTERS = 8;

export const PASSWORD_RULES: readonly PasswordRule[] = [
  {
    id: "min_length",
    description: `at least ${MIN_PASSWORD_CHARACTERS} characters`,
    holds: (p) => Array.from(p.normalize("NFC")).length >= MIN_PASSWORD_CHARACTERS,
  },
  { id: "uppercase", description: "at least one uppercase letter", holds: (p) => /\p{Lu}/u.test(p) },
  { id: "lowercase", description: "at least one lowercase letter", holds: (p) => /\p{Ll}/u.test(p) },
  { id: "digit", description: "at least one digit", holds: (p) => /\p{Nd}/u.test(p) },
  {
    id: "special",
    description: "at least one special character (e.g. ! @ # $)",
    holds: (p) => /[^\p{L}\p{M}\p{N}\p{White_Space}\p{Cc}\p{Cf}]/u.test(p),
  },
];

/** The rules the password breaks, in the order above; empty when it satisfies all five. */
export function failedPasswordRules(password: string): PasswordRule[] {
  return PASSWORD_RULES.filter((rule) => !rule.holds(password));
}

/** "Password does not meet requirements: at least one digit; at least one special character …" */
export function passwordRulesMessage(failed: readonly PasswordRule[]): string {
  return `Password does not meet requirements: ${failed.map((r) => r.description).join("; ")}`;
}
