import { describe, expect, it } from "vitest";
import {
  PARTY_CODE_LENGTH,
  PARTY_CODE_PATTERN,
  PARTY_HELD_SEATS,
  PARTY_HOLD_MS,
  PartyBook,
  partyCodeFrom,
  publicSeats,
  seatAvailability,
} from "../../../src/game/slitherrush/parties.js";
import { slitherrushJoinOptionsSchema } from "../../../src/protocol/slitherrush.js";

describe("party codes", () => {
  it("are 10 characters of Crockford's base32, one per random byte", () => {
    const code = partyCodeFrom(Uint8Array.from({ length: PARTY_CODE_LENGTH }, (_, i) => i * 37));
    expect(code).toMatch(PARTY_CODE_PATTERN);
    expect(code).toHaveLength(10);
    expect(partyCodeFrom(new Uint8Array(10))).toBe("0000000000");
    expect(partyCodeFrom(new Uint8Array(10).fill(31))).toBe("ZZZZZZZZZZ");
    expect(() => partyCodeFrom(new Uint8Array(9))).toThrow();
  });

  it("are accepted in any case as a join option, and nothing else is", () => {
    expect(slitherrushJoinOptionsSchema.parse({ party: "abcdefghjk" })).toEqual({ party: "ABCDEFGHJK" });
    expect(slitherrushJoinOptionsSchema.parse({ party: "create" })).toEqual({ party: "create" });
    for (const bad of ["ABCDEFGHJ", "ABCDEFGHJKM", "ABCDEFGHIJ", "ABCDEFGHJ!", 12, null]) {
      expect(slitherrushJoinOptionsSchema.safeParse({ party: bad }).success).toBe(false);
    }
  });
});

describe("PartyBook", () => {
  it("keeps members by code and ends a party with its last member", () => {
    const book = new PartyBook();
    const party = book.create("AAAAAAAAAA", "lead", 0);
    expect(book.join("AAAAAAAAAA", "friend", 10)).toBe(party);
    expect(book.join("BBBBBBBBBB", "stranger", 10)).toBeUndefined();
    expect([...party.members]).toEqual(["lead", "friend"]);
    expect(book.partyOf("friend")?.code).toBe("AAAAAAAAAA");
    expect(book.leave("lead", 20)).toEqual({ party, ended: false });
    expect(book.leave("friend", 30)).toEqual({ party, ended: true });
    expect(book.get("AAAAAAAAAA")).toBeUndefined();
    expect(book.leave("friend", 40)).toBeUndefined();
    expect(() => {
      book.create("CCCCCCCCCC", "x", 0);
      book.create("CCCCCCCCCC", "y", 0);
    }).toThrow(/in use/);
  });

  it("holds seats for 60 s after the party's latest join or leave", () => {
    const book = new PartyBook();
    book.create("AAAAAAAAAA", "lead", 0);
    expect(book.heldSeats(0)).toBe(PARTY_HELD_SEATS);
    expect(book.heldSeats(PARTY_HOLD_MS - 1)).toBe(PARTY_HELD_SEATS);
    expect(book.heldSeats(PARTY_HOLD_MS)).toBe(0);
    book.join("AAAAAAAAAA", "friend", PARTY_HOLD_MS + 5000);
    expect(book.heldSeats(PARTY_HOLD_MS + 5000)).toBe(PARTY_HELD_SEATS);
    book.create("BBBBBBBBBB", "other", PARTY_HOLD_MS + 5000);
    expect(book.heldSeats(PARTY_HOLD_MS + 6000)).toBe(2 * PARTY_HELD_SEATS);
  });

  it("moves a player who joins another party out of the first", () => {
    const book = new PartyBook();
    book.create("AAAAAAAAAA", "a", 0);
    book.create("BBBBBBBBBB", "b", 0);
    book.join("BBBBBBBBBB", "a", 1);
    expect(book.get("AAAAAAAAAA")).toBeUndefined();
    expect([...book.get("BBBBBBBBBB")!.members]).toEqual(["b", "a"]);
  });
});

describe("seat availability", () => {
  it("offers public seats net of held ones, and room for a party only with its held seats", () => {
    expect(publicSeats(20, 0)).toBe(12);
    expect(publicSeats(29, 3)).toBe(0);
    expect(publicSeats(32, 6)).toBe(0);
    expect(seatAvailability(28, 0)).toEqual({ open: true, roomForParty: true });
    expect(seatAvailability(29, 0)).toEqual({ open: true, roomForParty: false });
    expect(seatAvailability(29, 3)).toEqual({ open: false, roomForParty: false });
    expect(seatAvailability(31, 0)).toEqual({ open: true, roomForParty: false });
    expect(seatAvailability(32, 0)).toEqual({ open: false, roomForParty: false });
  });
});
