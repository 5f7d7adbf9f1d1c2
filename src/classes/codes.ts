// Class join codes: short, read off a board and typed by children, so no characters that read alike
// (no 0/O, 1/I/L) and no letter case to get wrong. 7 characters of 31: 2.75·10^10 codes; a code is
// guessed only through POST /api/classes/join, which is rate-limited per account.
import { randomInt } from "node:crypto";

export const CLASS_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const CLASS_CODE_LENGTH = 7;

/** A new code; `random(max)` returns an integer in [0, max) (crypto by default, unbiased). */
export function generateClassCode(random: (max: number) => number = randomInt): string {
  let code = "";
  for (let i = 0; i < CLASS_CODE_LENGTH; i++) code += CLASS_CODE_ALPHABET[random(CLASS_CODE_ALPHABET.length)];
  return code;
}

/**
 * What a typed code means: letter case, spaces and dashes ignored ("abc-d 234" is "ABCD234").
 * Undefined when it cannot be a code (wrong length, a character outside the alphabet).
 */
export function normalizeClassCode(typed: string): string | undefined {
  const code = typed.normalize("NFKC").replace(/[\s-]/g, "").toUpperCase();
  if (code.length !== CLASS_CODE_LENGTH) return undefined;
  for (const ch of code) if (!CLASS_CODE_ALPHABET.includes(ch)) return undefined;
  return code;
}
