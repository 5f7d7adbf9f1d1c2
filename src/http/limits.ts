// Request size limits shared by every JSON route (the game API and the workspace API parse their
// own bodies, each with its own error shape, but accept the same size).
/** JSON bodies above this are refused with 413. */
export const JSON_BODY_LIMIT = "16kb";
