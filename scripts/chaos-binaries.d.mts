export declare function findRedisServer(): string | undefined;
export declare function findPostgresBin(): string | undefined;
export declare function chaosUnavailable(): string | undefined;
export declare function findNginx(): string | undefined;
