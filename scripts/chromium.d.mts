/** The Chromium executable the browser tests use, or undefined when none is installed. */
export declare function findChromium(): string | undefined;
