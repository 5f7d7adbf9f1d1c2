// Request size limits shared by every JSON route (the game API and the workspace API parse their
// own bodies, each with its own error shape, but accept the same size).
/** JSON bodies above this are refused with 413. */
export const JSON_BODY_LIMIT = 16 * 1024;
/** A request must arrive whole within this (Node's default holds a slow body 300 s). */
export const REQUEST_TIMEOUT_MS = 10_000;
/** ...and its headers within this. */
export const HEADERS_TIMEOUT_MS = 5_000;
