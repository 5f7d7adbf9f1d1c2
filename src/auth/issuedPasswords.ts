// Passwords a teacher, an admin or the operator hands to someone (roster import, reset,
// create-account): shown once, read aloud or copied from paper, so easy to type. Syllables of a
// consonant and a vowel (no letters that read alike: no l, no q/x/c), a dash between groups, two
// digits from 2-9 at the end: "bako-mitu-resa-47". 6 syllables of 15×5 and 2 digits of 8: ~43 bits,
// plenty against sign-in attempts, which are rate-limited per address and per account.
import { randomInt } from "node:crypto";

const CONSONANTS = "bdfghjkmnprstvz";
const VOWELS = "aeiou";
const DIGITS = "23456789";
const GROUPS = 3;
const SYLLABLES_PER_GROUP = 2;

const pick = (alphabet: string, random: (max: number) => number) => alphabet[random(alphabet.length)];

/** A new easy-to-type password; `random(max)` returns an integer in [0, max) (crypto by default). */
export function generateIssuedPassword(random: (max: number) => number = randomInt): string {
  const groups: string[] = [];
  for (let g = 0; g < GROUPS; g++) {
    let group = "";
    for (let s = 0; s < SYLLABLES_PER_GROUP; s++) group += pick(CONSONANTS, random) + pick(VOWELS, random);
    groups.push(group);
  }
  return `${groups.join("-")}-${pick(DIGITS, random)}${pick(DIGITS, random)}`;
}

/** The shape generateIssuedPassword produces (tests and docs). */
export const ISSUED_PASSWORD_PATTERN = /^(?:[bdfghjkmnprstvz][aeiou]){2}(?:-(?:[bdfghjkmnprstvz][aeiou]){2}){2}-[2-9]{2}$/;
