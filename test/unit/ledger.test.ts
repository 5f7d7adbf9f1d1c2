import { describe, expect, it } from "vitest";
import { Ledger } from "../../src/rooms/kit/ledger.js";

describe("Ledger (what an account seat has written)", () => {
  it("each write carries only the increase since the previous one", () => {
    const ledger = new Ledger(["shots", "hits"] as const);
    expect(ledger.hasUnsaved({ shots: 0, hits: 0 })).toBe(false);
    expect(ledger.hasUnsaved({ shots: 3, hits: 0 })).toBe(true);
    expect(ledger.take({ shots: 3, hits: 1 }).delta).toEqual({ shots: 3, hits: 1 });
    expect(ledger.hasUnsaved({ shots: 3, hits: 1 })).toBe(false);
    expect(ledger.take({ shots: 7, hits: 1 }).delta).toEqual({ shots: 4, hits: 0 });
    expect(ledger.written).toEqual({ shots: 7, hits: 1 });
  });

  it("a failed write rolls back, so the next write carries its increase again", () => {
    const ledger = new Ledger(["shots"] as const);
    ledger.take({ shots: 2 });
    const failed = ledger.take({ shots: 5 });
    expect(failed.delta).toEqual({ shots: 3 });
    ledger.rollback(failed);
    expect(ledger.hasUnsaved({ shots: 5 })).toBe(true);
    expect(ledger.take({ shots: 6 }).delta).toEqual({ shots: 4 });
  });

  it("the final record is claimed once, and again only after its write failed", () => {
    const ledger = new Ledger(["shots"] as const);
    expect(ledger.take({ shots: 1 }).final).toBe(false);
    const first = ledger.take({ shots: 1 }, { final: true });
    expect(first.final).toBe(true);
    expect(ledger.finalRecorded).toBe(true);
    ledger.rollback(first);
    expect(ledger.finalRecorded).toBe(false);
    expect(ledger.take({ shots: 1 }, { final: true }).final).toBe(true);
    expect(ledger.take({ shots: 2 }, { final: true })).toEqual({ delta: { shots: 1 }, final: false });
  });

  it("rolling back a checkpoint after a later write keeps the totals consistent", () => {
    const ledger = new Ledger(["spent"] as const);
    const checkpoint = ledger.take({ spent: 4 });
    const leave = ledger.take({ spent: 6 }, { final: true });
    ledger.rollback(checkpoint); // the checkpoint's write failed after the leave's succeeded
    expect(ledger.written).toEqual({ spent: 2 });
    expect(leave.delta).toEqual({ spent: 2 });
    expect(ledger.take({ spent: 6 }).delta).toEqual({ spent: 4 });
  });
});
