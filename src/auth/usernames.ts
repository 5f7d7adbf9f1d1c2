// How a typed username names an account, in one place for game accounts and workspace users. Sign-in
// looks the account up with `signInName` and the limits that count attempts per account key on
// `usernameKey`, which folds every spelling `signInName` could match (and more) into one key: no
// padding, letter case, width or invisible character opens a fresh budget for the same account.
// Stored names are ASCII (the register and workspace schemas), compared in any letter case.

import { z } from "zod";
import { withTextRule } from "../protocol/text.js";

/**
 * What a new account's name must be: registration, a roster import and the operator's
 * create-account all check this one schema.
 */
export const accountUsernameSchema = withTextRule(z.string({ message: "username must be a string" }), "identifier")
  .trim()
  .min(3, "username must have at least 3 characters")
  .max(32, "username must have at most 32 characters")
  .regex(/^[A-Za-z0-9_.-]+$/, "username may only contain letters, digits, '_', '.' and '-'");

const WHITE_SPACE_AROUND = /^\p{White_Space}+|\p{White_Space}+$/gu;
/** Characters nobody sees: Unicode white space anywhere (NBSP, U+3000...) and default-ignorables (zero-width marks, BOM, soft hyphen). */
const INVISIBLE = /[\p{White_Space}\p{Default_Ignorable_Code_Point}]/gu;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The name a sign-in looks up, or undefined when no account can have it. Compatibility forms are
 * read as what they stand for (NFKC: full-width `ａｄａ` is `ada`, as RFC 8265's width mapping
 * does) and white space around the name is dropped (a pasted name, a phone keyboard's trailing
 * space: registration trims too). Anything else non-ASCII names nobody, so the database's own
 * case mapping (locale-dependent beyond ASCII) never decides which account a name reaches.
 */
export function signInName(typed: string): string | undefined {
  const name = typed.normalize("NFKC").replace(WHITE_SPACE_AROUND, "");
  return PRINTABLE_ASCII.test(name) ? name : undefined;
}

/**
 * The key a name's per-account limits count under: NFKC, every invisible character removed, then
 * case-folded (upper then lower, so `ß` and `SS` agree). Coarser than `signInName` plus the
 * case-insensitive lookup: two names that reach one account always share a key.
 */
export function usernameKey(typed: string): string {
  return typed.normalize("NFKC").replace(INVISIBLE, "").toUpperCase().toLowerCase().normalize("NFKC");
}
