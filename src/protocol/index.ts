// The client protocol in one import (package.json "exports": `snakes-game-backend/protocol`): every
// room's message names, inbound schemas and outbound payload types, its schema state classes, the
// SlitherRush snapshot decoder and the constants a client needs. Built by `npm run build:protocol`
// into dist/protocol (JavaScript + .d.ts) with nothing server-only in it.
export * from "./common.js";
export * from "./boss.js";
export * from "./bossState.js";
export * from "./modes.js";
export * from "./pvp.js";
export * from "./pvpState.js";
export * from "./shooterInput.js";
export * from "./slitherrush.js";
export * from "./slitherrushState.js";
export * from "./slitherrushSnapshot.js";
export * from "./rooms.js";
export * from "./text.js";
export * from "./version.js";
export * as CloseCodes from "./closeCodes.js";
// The boss room's type constants before they were named like their schema types (docs/clients.md):
// kept so code that imported the old names still builds.
export {
  /** @deprecated use BossPowerupState */ BossPowerupState as PowerupState,
  /** @deprecated use BossProjectileState */ BossProjectileState as ProjectileState,
  /** @deprecated use BossBoundsState */ BossBoundsState as BoundsState,
  /** @deprecated use BossLobbyMemberState */ BossLobbyMemberState as LobbyMemberState,
} from "./bossState.js";
