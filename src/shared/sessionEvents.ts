// "A session of this subject ended": every process caches who may hold a session for a few
// seconds (src/auth/sessions.ts), so the process that ends sessions tells the others to forget
// what they cached. Scaled out this goes through Redis pub/sub; a single process needs no message.
import type { Redis } from "ioredis";
import type { Logger } from "../logger.js";

export interface SessionEvents {
  /** Tells every other process that the subject's sessions changed. */
  publish(subjectKey: string): void;
  /** Calls `handler` for changes published by any process. */
  onChange(handler: (subjectKey: string) => void): void;
  close(): Promise<void>;
}

/** One process: nobody else caches sessions. */
export class LocalSessionEvents implements SessionEvents {
  publish(): void {}
  onChange(): void {}
  async close(): Promise<void> {}
}

const CHANNEL = "sessions:changed";

export class RedisSessionEvents implements SessionEvents {
  private readonly subscriber: Redis;
  private readonly handlers: Array<(subjectKey: string) => void> = [];
  /** Settles once the subscription is in place (or failed, which is logged). */
  readonly ready: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {
    // A subscribed connection can do nothing else: its own connection.
    this.subscriber = redis.duplicate();
    this.subscriber.on("error", (err) => logger.warn({ err }, "session events: Redis connection error"));
    this.subscriber.on("message", (_channel: string, key: string) => this.handlers.forEach((h) => h(key)));
    this.ready = this.subscriber.subscribe(CHANNEL).then(
      () => undefined,
      (err) => logger.warn({ err }, "session events: could not subscribe"),
    );
  }

  publish(subjectKey: string): void {
    this.redis.publish(CHANNEL, subjectKey).catch((err) => this.logger.warn({ err }, "session events: could not publish"));
  }

  onChange(handler: (subjectKey: string) => void): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
