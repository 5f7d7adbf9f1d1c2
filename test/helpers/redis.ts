// TEST_REDIS_URL with a Redis database (the number after the host) of the calling suite's own. The
// Redis suites would otherwise share one matchmaker: Colyseus would place one suite's rooms on
// another suite's process (a room name it lacks, an address its clients cannot reach). In separate
// databases their listings, processes, leases and counters never meet, so the suites run beside each
// other and beside every other file, instead of one at a time after all of them.
export const REDIS_DATABASES = { redis: 1, scaleout: 2 } as const;

export function testRedisUrl(suite: keyof typeof REDIS_DATABASES): string | undefined {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return undefined;
  const u = new URL(url);
  u.pathname = `/${REDIS_DATABASES[suite]}`;
  return u.toString();
}
