// State sync under churn, at the schema level (issue 43): random sequences of room events — players,
// powerups, projectiles and bullets added, moved and removed, clients joining late, reconnecting,
// and what a client may see changing (a StateView) — run through Colyseus' own SchemaSerializer (the
// server side of every room: full state on join, one patch per tick, per-view patches) and decoded
// as clients decode them: with the state classes (what generated classes are, test/unit/codegen.test.ts)
// and with the reflection the join handshake carries (what the JS SDK does). After every patch each
// client's state must equal what the server holds and that client may see, field by field.
// The same paths over real rooms and sockets: test/integration/clientState.test.ts.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ClientState, SchemaSerializer, type Client } from "@colyseus/core";
import { Decoder, Reflection, StateView, schema, t, type Schema } from "@colyseus/schema";
import { BossPowerupState, BossProjectileState, BossRoomState, BossPlayerState } from "../../src/protocol/bossState.js";
import { PvpArenaState, PvpBulletState, PvpPlayerState } from "../../src/protocol/pvpState.js";
import { applyFrame, asSent } from "../helpers/stateFrames.js";

// The seed is fixed so a failure replays; FC_SEED=<n> tries another.
const SEED = Number(process.env.FC_SEED ?? 43);
const RUNS = Number(process.env.FC_RUNS ?? 40);

/** One client of the simulated room: its connection as the serializer sees it, and two decoders. */
class SimClient {
  readonly frames: Uint8Array[] = [];
  readonly connection: Client;
  typed!: Decoder<any>;
  reflected!: Decoder<any>;
  /** The bullets this client's view holds (PvP-like rooms only). */
  readonly sees = new Set<string>();

  constructor(
    readonly name: string,
    readonly view: StateView | undefined,
  ) {
    this.connection = { state: ClientState.JOINED, view, raw: (bytes: Uint8Array) => this.frames.push(bytes.slice()) } as unknown as Client;
  }

  /** A join (or a rejoin): the handshake, then the whole state (this view's part of it). */
  join(serializer: SchemaSerializer<any>, Root: new () => Schema, rejoin: boolean): void {
    if (!rejoin) {
      this.typed = new Decoder(new Root());
      this.reflected = Reflection.decode(serializer.handshake()!);
    }
    const full = { bytes: serializer.getFullState(this.connection).slice(), full: true, offset: 1 };
    applyFrame(this.typed as any, full);
    applyFrame(this.reflected as any, full);
  }

  /** Applies the patches received since the last call. */
  drain(): void {
    for (const bytes of this.frames.splice(0)) {
      applyFrame(this.typed as any, { bytes, full: false, offset: 1 });
      applyFrame(this.reflected as any, { bytes, full: false, offset: 1 });
    }
  }
}

const coordinate = fc.integer({ min: 0, max: 12000 }).map((n) => n / 10);
const key = fc.integer({ min: 0, max: 11 });

// ---------------------------------------------------------------------------------------------
// The boss room's state: three maps that churn every tick, no filters.
// ---------------------------------------------------------------------------------------------

type BossEvent =
  | { kind: "addPlayer" | "removePlayer" | "addPowerup" | "removePowerup" | "addProjectile" | "removeProjectile"; key: number }
  | { kind: "movePlayer" | "moveProjectile"; key: number; x: number; y: number }
  | { kind: "collect"; key: number }
  | { kind: "health"; value: number }
  | { kind: "tick" }
  | { kind: "joinLate" }
  | { kind: "reconnect"; client: number };

const bossEvent: fc.Arbitrary<BossEvent> = fc.oneof(
  fc.record({ kind: fc.constantFrom("addPlayer", "removePlayer", "addPowerup", "removePowerup", "addProjectile", "removeProjectile"), key }) as fc.Arbitrary<BossEvent>,
  fc.record({ kind: fc.constantFrom("movePlayer", "moveProjectile"), key, x: coordinate, y: coordinate }) as fc.Arbitrary<BossEvent>,
  fc.record({ kind: fc.constant("collect"), key }) as fc.Arbitrary<BossEvent>,
  fc.record({ kind: fc.constant("health"), value: fc.integer({ min: 0, max: 2000 }) }) as fc.Arbitrary<BossEvent>,
  { arbitrary: fc.constant({ kind: "tick" } as BossEvent), weight: 3 },
  fc.constant({ kind: "joinLate" } as BossEvent),
  fc.record({ kind: fc.constant("reconnect"), client: fc.nat(7) }) as fc.Arbitrary<BossEvent>,
);

describe("boss room state: random churn, late joins and reconnects (Colyseus' SchemaSerializer)", () => {
  it("every client's state equals the server's after every patch", () => {
    let patches = 0;
    let values = 0;
    fc.assert(
      fc.property(fc.array(bossEvent, { minLength: 20, maxLength: 150 }), (events) => {
        const state = new BossRoomState();
        state.room_id = "room";
        const serializer = new SchemaSerializer<any>();
        serializer.reset(state);
        const clients: SimClient[] = [];
        const joinClient = () => {
          const c = new SimClient(`c${clients.length}`, undefined);
          c.join(serializer, BossRoomState as unknown as new () => Schema, false);
          clients.push(c);
        };
        const check = () => {
          const expected = asSent(state.toJSON());
          for (const c of clients) {
            c.drain();
            expect(c.typed.state.toJSON(), `${c.name}: state classes`).toEqual(expected);
            expect(c.reflected.state.toJSON(), `${c.name}: reflection (SDK)`).toEqual(expected);
            values += 2;
          }
        };
        joinClient();
        let serial = 0;
        for (const e of events) {
          const id = "key" in e ? `k${e.key}` : "";
          switch (e.kind) {
            case "addPlayer":
              if (!state.players.has(id)) state.players.set(id, Object.assign(new BossPlayerState(), { username: `P${e.key}`, character: "archer", lives: 5 }));
              break;
            case "removePlayer":
              state.players.delete(id);
              break;
            case "movePlayer": {
              const p = state.players.get(id);
              if (p) Object.assign(p, { x: e.x, y: e.y });
              break;
            }
            case "collect":
              state.players.get(id)?.powerups_collected.push(`damage${serial++}`);
              break;
            case "addPowerup":
              state.powerups.set(`${id}-${serial++}`, new BossPowerupState({ id, type: "speed", x: 10, y: 20 }));
              break;
            case "removePowerup": {
              const first = [...state.powerups.keys()][e.key % Math.max(1, state.powerups.size)];
              if (first) state.powerups.delete(first);
              break;
            }
            case "addProjectile":
              // Keys come back after a removal, as boss projectile ids do not (a harder case for decoders).
              state.projectiles.set(id, new BossProjectileState({ x: 1, y: 2, vx: 0.5, vy: -3.5 }));
              break;
            case "removeProjectile":
              state.projectiles.delete(id);
              break;
            case "moveProjectile": {
              const s = state.projectiles.get(id);
              if (s) Object.assign(s, { x: e.x, y: e.y });
              break;
            }
            case "health":
              state.boss_health = e.value;
              break;
            case "tick":
              serializer.applyPatches(clients.map((c) => c.connection));
              patches++;
              check();
              break;
            case "joinLate":
              if (clients.length < 8) joinClient();
              break;
            case "reconnect": {
              const c = clients[e.client % clients.length];
              c.frames.length = 0; // what was in flight on the dead socket is lost
              c.join(serializer, BossRoomState as unknown as new () => Schema, true);
              break;
            }
          }
        }
        serializer.applyPatches(clients.map((c) => c.connection));
        patches++;
        check();
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(patches).toBeGreaterThan(RUNS * 5);
    expect(values).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// PvP's types behind a StateView: what each client may see changes while the maps churn.
// The PvP room itself sends every bullet to both duelists (no filters today); this state is the
// same types with the bullets map filtered, the shape a room that hides them would have.
// ---------------------------------------------------------------------------------------------

const ViewedPvpState = schema(
  {
    room_id: t.string(),
    phase: t.string().default("waiting"),
    arena: PvpArenaState,
    players: t.map(PvpPlayerState),
    bullets: t.map(PvpBulletState).view(),
  },
  "ViewedPvpState",
);

/**
 * A filtered map reaches a client once its view holds something of it: until then a decoder built
 * from the reflection has no `bullets` at all, the state classes an empty map. Both mean "none".
 */
/** The n-th (modulo) of some keys, undefined when there are none. */
function pick(keys: Iterable<string>, n: number): string | undefined {
  const all = [...keys];
  return all.length === 0 ? undefined : all[n % all.length];
}

const withBullets = (json: any) => ({ ...json, bullets: json.bullets ?? {} });

type ViewEvent =
  | { kind: "addBullet" | "removeBullet"; key: number }
  | { kind: "moveBullet"; key: number; x: number; y: number }
  | { kind: "show" | "hide"; client: number; key: number }
  | { kind: "addPlayer" | "removePlayer"; key: number }
  | { kind: "phase"; value: string }
  | { kind: "tick" }
  | { kind: "joinLate" }
  | { kind: "reconnect"; client: number };

const viewEvent: fc.Arbitrary<ViewEvent> = fc.oneof(
  fc.record({ kind: fc.constantFrom("addBullet", "removeBullet", "addPlayer", "removePlayer"), key }) as fc.Arbitrary<ViewEvent>,
  fc.record({ kind: fc.constant("moveBullet"), key, x: coordinate, y: coordinate }) as fc.Arbitrary<ViewEvent>,
  { arbitrary: fc.record({ kind: fc.constantFrom("show", "hide"), client: fc.nat(3), key }) as fc.Arbitrary<ViewEvent>, weight: 3 },
  fc.record({ kind: fc.constant("phase"), value: fc.constantFrom("waiting", "ready_check", "battle", "finished") }) as fc.Arbitrary<ViewEvent>,
  { arbitrary: fc.constant({ kind: "tick" } as ViewEvent), weight: 3 },
  fc.constant({ kind: "joinLate" } as ViewEvent),
  fc.record({ kind: fc.constant("reconnect"), client: fc.nat(3) }) as fc.Arbitrary<ViewEvent>,
);

describe("PvP state through a StateView: random churn and changes of what each client may see", () => {
  it("every client's state equals the server's, restricted to its view, after every patch", () => {
    let patches = 0;
    let viewChanges = 0;
    fc.assert(
      fc.property(fc.array(viewEvent, { minLength: 20, maxLength: 150 }), (events) => {
        const state = new ViewedPvpState();
        state.room_id = "duel";
        const serializer = new SchemaSerializer<any>();
        serializer.reset(state);
        const clients: SimClient[] = [];
        const joinClient = () => {
          const c = new SimClient(`c${clients.length}`, new StateView());
          c.join(serializer, ViewedPvpState as unknown as new () => Schema, false);
          clients.push(c);
        };
        const check = () => {
          const server = state.toJSON() as { bullets: Record<string, unknown> };
          for (const c of clients) {
            c.drain();
            const bullets = Object.fromEntries(Object.entries(server.bullets).filter(([k]) => c.sees.has(k)));
            const expected = asSent({ ...server, bullets });
            expect(withBullets(c.typed.state.toJSON()), `${c.name}: state classes`).toEqual(expected);
            expect(withBullets(c.reflected.state.toJSON()), `${c.name}: reflection (SDK)`).toEqual(expected);
          }
        };
        joinClient();
        joinClient();
        for (const e of events) {
          switch (e.kind) {
            case "addBullet": {
              const id = `b${e.key}`;
              if (!state.bullets.has(id)) state.bullets.set(id, new PvpBulletState({ owner: "p1", x: 100, y: 300, vx: 420, vy: 0 }));
              break;
            }
            case "removeBullet":
              // A bullet that is gone is gone from every view too.
              if (state.bullets.delete(`b${e.key}`)) for (const c of clients) c.sees.delete(`b${e.key}`);
              break;
            case "moveBullet": {
              const b = state.bullets.get(`b${e.key}`);
              if (b) Object.assign(b, { x: e.x, y: e.y });
              break;
            }
            case "show": {
              const c = clients[e.client % clients.length];
              const id = pick(state.bullets.keys(), e.key);
              const b = id === undefined ? undefined : state.bullets.get(id);
              if (b && !c.sees.has(id!)) {
                c.view!.add(b);
                c.sees.add(id!);
                viewChanges++;
              }
              break;
            }
            case "hide": {
              const c = clients[e.client % clients.length];
              const id = pick(c.sees.values(), e.key);
              const b = id === undefined ? undefined : state.bullets.get(id);
              if (b) {
                c.view!.remove(b);
                c.sees.delete(id!);
                viewChanges++;
              }
              break;
            }
            case "addPlayer":
              if (!state.players.has(`p${e.key}`)) state.players.set(`p${e.key}`, Object.assign(new PvpPlayerState(), { username: `P${e.key}`, player_number: 1 + (e.key % 2), lives: 3 }));
              break;
            case "removePlayer":
              state.players.delete(`p${e.key}`);
              break;
            case "phase":
              state.phase = e.value;
              break;
            case "tick":
              serializer.applyPatches(clients.map((c) => c.connection));
              patches++;
              check();
              break;
            case "joinLate":
              if (clients.length < 4) joinClient();
              break;
            case "reconnect": {
              const c = clients[e.client % clients.length];
              c.frames.length = 0;
              c.join(serializer, ViewedPvpState as unknown as new () => Schema, true);
              break;
            }
          }
        }
        serializer.applyPatches(clients.map((c) => c.connection));
        patches++;
        check();
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(patches).toBeGreaterThan(RUNS * 5);
    expect(viewChanges).toBeGreaterThan(RUNS);
  });
});
