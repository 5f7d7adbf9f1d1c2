// fast-check arbitraries from JSON Schema (the OpenAPI document's, and z.toJSONSchema of the room
// protocols): values the schema allows, and values around it (wrong types, edge numbers, hostile
// strings, extra and prototype keys, arrays for objects, deep nesting). Nothing here knows a route
// or a message: a new one is fuzzed by being in the schemas.
import fc from "fast-check";
import { textProblem } from "../../src/protocol/text.js";

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  [key: string]: unknown;
};

/** A generated value, and whether a hostile string (NUL, lone surrogate) sits where the schema wants a string. */
export interface Generated {
  value: unknown;
  poisoned: boolean;
}

/** Strings every text rule refuses: the service must answer them 400, never store or echo them altered. */
export const POISON_STRINGS = ["a\u0000b", "\u0000", "a\ud800b", "\udfff", "x\udbff", `${"y".repeat(40)}\u0000`];
/** Strings a schema may or may not allow, none of which may hurt: bidi and zero-width controls, prototype names, paths. */
const HOSTILE_STRINGS = [
  "",
  " ",
  "\u202eevil\u202c",
  "a\u200bb",
  "\ufeff",
  "__proto__",
  "constructor",
  "../../etc/passwd",
  "%00",
  "\\u0000",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "😀".repeat(40),
  "\r\n",
  "\t",
  "1e309",
  "NaN",
];
const EDGE_NUMBERS = [0, -0, 1, -1, 0.5, -0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, Number.MIN_VALUE, 1e-7];

export interface GeneratorOptions {
  /** Resolves "#/components/schemas/X". */
  root?: Record<string, unknown>;
  /** Known values (ids of the fuzzer's own records) strings sometimes take, to reach past lookups. */
  pool?: string[];
  /** Every property present, optional ones too (so every field can be tried). */
  allKeys?: boolean;
}

/** Characters a valid string is made of: printable, well-formed, no control or format characters, no edge spaces. */
const codePoints = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCodePoint(c));
const validChar = fc
  .oneof(
    { arbitrary: codePoints(0x21, 0x7e), weight: 8 }, // printable ASCII
    codePoints(0xa1, 0x24f), // Latin-1 and Latin Extended
    codePoints(0x391, 0x3c9), // Greek
    codePoints(0x4e00, 0x4fff), // CJK
    codePoints(0x1f600, 0x1f64f), // emoji (a surrogate pair in UTF-16)
  )
  .filter((c) => textProblem(c, "identifier") === undefined && c.trim() === c);

function resolve(schema: JsonSchema, opts: GeneratorOptions): JsonSchema {
  if (!schema.$ref) return schema;
  const path = schema.$ref.replace(/^#\//, "").split("/");
  let node: unknown = opts.root;
  for (const part of path) node = (node as Record<string, unknown>)?.[part];
  if (!node) throw new Error(`unresolved $ref ${schema.$ref}`);
  return resolve(node as JsonSchema, opts);
}

const types = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function validString(s: JsonSchema, opts: GeneratorOptions): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 24, Math.max(min, 24));
  const fits = (v: string) => v.length >= min && v.length <= (s.maxLength ?? Infinity) && (!s.pattern || new RegExp(s.pattern, "u").test(v));
  let base: fc.Arbitrary<string>;
  if (s.format === "date-time") base = fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  else if (s.pattern) base = fc.stringMatching(new RegExp(s.pattern)).filter(fits);
  else base = fc.string({ unit: validChar, minLength: Math.max(min, 1), maxLength: Math.max(max, 1) }).filter(fits);
  const known = (opts.pool ?? []).filter(fits);
  return known.length ? fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constantFrom(...known), weight: 1 }) : base;
}

function validNumber(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e6);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
}

/** Small JSON values for schemas that say nothing (`{}`): accepted or ignored, never harmful. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/**
 * Arbitraries are built once per (schema node, options, depth): `chain` would otherwise rebuild
 * them, regular expressions included, for every generated value.
 */
function memo<T>(build: (schema: JsonSchema, opts: GeneratorOptions, depth: number) => fc.Arbitrary<T>) {
  const cache = new WeakMap<JsonSchema, WeakMap<GeneratorOptions, Map<number, fc.Arbitrary<T>>>>();
  return (schema: JsonSchema, opts: GeneratorOptions = {}, depth = 0): fc.Arbitrary<T> => {
    let byOpts = cache.get(schema);
    if (!byOpts) cache.set(schema, (byOpts = new WeakMap()));
    let byDepth = byOpts.get(opts);
    if (!byDepth) byOpts.set(opts, (byDepth = new Map()));
    let arb = byDepth.get(depth);
    if (!arb) byDepth.set(depth, (arb = build(schema, opts, depth)));
    return arb;
  };
}

/** Values the schema allows (cross-field rules it cannot say aside). */
export const valid = memo(buildValid);

function buildValid(schema: JsonSchema, opts: GeneratorOptions, depth: number): fc.Arbitrary<unknown> {
  const s = resolve(schema, opts);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const union = s.anyOf ?? s.oneOf;
  if (union) return fc.oneof(...union.map((u) => valid(u, opts, depth)));
  if (s.allOf?.length) return valid(s.allOf[0], opts, depth);
  const t = types(s);
  if (t.length > 1) return fc.oneof(...t.map((one) => valid({ ...s, type: one }, opts, depth)));
  switch (t[0]) {
    case "string":
      return validString(s, opts);
    case "integer":
      return validNumber(s, true);
    case "number":
      return validNumber(s, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(s.items ? valid(s.items, opts, depth + 1) : anyJson, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case "object": {
      const props = s.properties ?? {};
      const shape = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, opts, depth + 1)]));
      return fc.record(shape, { requiredKeys: opts.allKeys ? Object.keys(props) : (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return anyJson;
  }
}

/**
 * Objects and arrays nested up to 5,000 deep. Kept as a marker, not as objects: this process's own
 * JSON.stringify would run out of stack on them. jsonText writes them out; counter-examples show a summary.
 */
export class DeepNesting {
  constructor(readonly depth: number) {}
  [fc.toStringMethod]() {
    return `<${this.depth}-deep nesting>`;
  }
  /** The same shape as real objects, at most `cap` deep (what a client library can still encode). */
  build(cap: number): unknown {
    let v: unknown = 1;
    for (let i = 0; i < Math.min(this.depth, cap); i++) v = i % 2 ? [v] : { a: v };
    return v;
  }
}
const deeplyNested = fc.integer({ min: 50, max: 5000 }).map((n) => new DeepNesting(n));

/** JSON text of a generated value, deep nesting written out in full. */
export function jsonText(value: unknown): string | undefined {
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof DeepNesting ? `\u0001deep:${v.depth}` : v));
  return text?.replace(/"\\u0001deep:(\d+)"/g, (_m, n: string) => {
    const depth = Number(n);
    let open = "";
    let close = "";
    for (let i = depth - 1; i >= 0; i--) {
      open += i % 2 ? "[" : '{"a":';
      close = (i % 2 ? "]" : "}") + close;
    }
    return `${open}1${close}`;
  });
}

/** A generated value as a client would build it from JSON: plain objects (fast-check's records have no prototype), own `__proto__` keys kept, deep nesting capped. */
export function asJson(value: unknown, deepCap = 200): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v instanceof DeepNesting ? v.build(deepCap) : v)));
}

/** A value of the wrong kind for `s`; poisoned when it is a refused string where a string belongs. */
function wrongValue(s: JsonSchema): fc.Arbitrary<Generated> {
  const wantsString = types(s).includes("string") || (s.enum?.some((e) => typeof e === "string") ?? false);
  const plain = fc.oneof(
    fc.constantFrom<unknown>(null, true, false, [], {}, [1, "a"], { __proto__: null }),
    fc.constantFrom(...EDGE_NUMBERS),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: codePoints(1, 0x10ffff), maxLength: 12 }).filter((v) => textProblem(v) === undefined), // any code point but NUL and surrogates
    fc.constantFrom("x".repeat(100_000), "é".repeat(5_000)),
    deeplyNested,
    fc.jsonValue({ maxDepth: 3 }),
  );
  return fc.oneof(
    { arbitrary: plain.map((value) => ({ value, poisoned: false })), weight: 5 },
    { arbitrary: fc.constantFrom(...POISON_STRINGS).map((value) => ({ value, poisoned: wantsString })), weight: 2 },
  );
}

/** A hostile string in place of a valid one: prefixes, suffixes or the whole value. */
function poisonedString(s: JsonSchema, opts: GeneratorOptions): fc.Arbitrary<Generated> {
  return fc
    .tuple(validString({ ...s, pattern: undefined, minLength: 0 }, opts), fc.constantFrom(...POISON_STRINGS), fc.nat(2))
    .map(([base, bad, where]) => ({ value: where === 0 ? bad + base : where === 1 ? base + bad : bad, poisoned: true }));
}

/** Values around the schema: one thing wrong (or hostile) somewhere, the rest as it should be. */
export const around = memo(buildAround);

function buildAround(schema: JsonSchema, opts: GeneratorOptions, depth: number): fc.Arbitrary<Generated> {
  const s = resolve(schema, opts);
  const t = types(s);
  const options: fc.WeightedArbitrary<Generated>[] = [{ arbitrary: wrongValue(s), weight: 2 }];
  if (t.includes("string") || s.enum?.some((e) => typeof e === "string")) options.push({ arbitrary: poisonedString(s, opts), weight: 3 });
  if (t.includes("integer") || t.includes("number")) {
    const edges = [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum].filter((n): n is number => n !== undefined).flatMap((n) => [n - 1, n + 1, n + 0.5, n - 1e-9]);
    options.push({ arbitrary: fc.constantFrom(...EDGE_NUMBERS, ...edges).map((value) => ({ value, poisoned: false })), weight: 2 });
  }
  if (t.includes("object") && depth < 6) {
    const props = Object.entries(s.properties ?? {});
    const base = valid(s, opts, depth) as fc.Arbitrary<Record<string, unknown>>;
    if (props.length) {
      const oneWrong = fc.constantFrom(...props).chain(([key, prop]) =>
        fc.tuple(base, around(prop, opts, depth + 1)).map(([obj, wrong]) => ({ value: { ...obj, [key]: wrong.value }, poisoned: wrong.poisoned })),
      );
      options.push({ arbitrary: oneWrong, weight: 6 });
    }
    const extraKey = fc.tuple(base, fc.constantFrom("__proto__", "constructor", "prototype", "admin", "user_id", "x".repeat(300)), fc.jsonValue({ maxDepth: 2 })).map(([obj, key, v]) => {
      const out = { ...obj };
      Object.defineProperty(out, key, { value: key === "__proto__" ? { admin: true, polluted: v } : v, enumerable: true, configurable: true, writable: true });
      return { value: out, poisoned: false };
    });
    options.push({ arbitrary: extraKey, weight: 2 });
    options.push({ arbitrary: base.map((obj) => ({ value: [obj], poisoned: false })), weight: 1 });
  }
  if (t.includes("array") && s.items && depth < 6) {
    const items = s.items;
    const oneWrong = fc
      .tuple(fc.array(valid(items, opts, depth + 1), { maxLength: 3 }), around(items, opts, depth + 1), fc.nat(3))
      .map(([arr, wrong, at]) => {
        const out = [...arr];
        out.splice(Math.min(at, out.length), 0, wrong.value);
        return { value: out, poisoned: wrong.poisoned };
      });
    options.push({ arbitrary: oneWrong, weight: 4 });
    options.push({ arbitrary: fc.constant({ value: Array.from({ length: 2_000 }, (_, i) => i), poisoned: false }), weight: 1 });
  }
  return fc.oneof(...options);
}

/** Valid values (tagged clean) and values around the schema, about half each. */
export const aroundOrValid = memo<Generated & { valid: boolean }>((schema, opts) =>
  fc.oneof(
    valid(schema, opts).map((value) => ({ value, poisoned: false, valid: true })),
    around(schema, opts).map((g) => ({ ...g, valid: false })),
  ),
);

const wantsString = (s: JsonSchema) => types(s).includes("string") || (s.enum?.some((e) => typeof e === "string") ?? false);

/** Where `value` (valid for `schema`) holds a string the schema asks for: the paths a hostile string can take. */
export function stringPaths(schema: JsonSchema, value: unknown, opts: GeneratorOptions = {}, at: (string | number)[] = []): (string | number)[][] {
  const s = resolve(schema, opts);
  const union = s.anyOf ?? s.oneOf;
  if (union) return union.flatMap((u) => stringPaths(u, value, opts, at)).filter((p, i, all) => all.findIndex((q) => q.join("\u0000") === p.join("\u0000")) === i);
  if (typeof value === "string") return wantsString(s) ? [at] : [];
  if (Array.isArray(value)) return s.items ? value.flatMap((v, i) => stringPaths(s.items!, v, opts, [...at, i])) : [];
  if (value && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (s.properties?.[k] ? stringPaths(s.properties[k], v, opts, [...at, k]) : []));
  }
  return [];
}

/** A copy of `value` with `replacement` at `path`. */
export function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (!path.length) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[head] = replaceAt(copy[head], rest, replacement);
  return copy;
}

/** True when `v` holds NaN or ±Infinity anywhere (msgpack can carry them; nothing the server sends may). */
export function hasNonFinite(v: unknown, seen = new Set<unknown>()): boolean {
  if (typeof v === "number") return !Number.isFinite(v);
  if (!v || typeof v !== "object" || seen.has(v) || ArrayBuffer.isView(v)) return false;
  seen.add(v);
  return Object.values(v as Record<string, unknown>).some((x) => hasNonFinite(x, seen));
}
