// Prisma's schema engine (the part behind `prisma migrate`) in its Wasm build, driven over the same
// driver adapter the application uses. This is what lets migrations run on the embedded PGlite and
// on a real PostgreSQL alike, with no native binary download.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";

const require = createRequire(import.meta.url);
let wasmReady: Promise<typeof import("@prisma/schema-engine-wasm/schema_engine_bg")> | undefined;

/** Loads the bindings once per process. The package's entry imports the .wasm as an ES module,
 * which Node cannot do, so we instantiate the module ourselves and hand it to the bindings. */
function loadBindings() {
  wasmReady ??= (async () => {
    const bg = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    // The .wasm is not in the package's export map: find it beside the exported glue module.
    const wasmPath = join(dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg")), "schema_engine_bg.wasm");
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
      "./schema_engine_bg.js": bg as unknown as WebAssembly.ModuleImports,
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg;
  })();
  return wasmReady;
}

export async function openSchemaEngine(
  schemaPath: string,
  schema: string,
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
): Promise<SchemaEngine> {
  const bg = await loadBindings();
  const log = () => {};
  return bg.SchemaEngine.new(
    { datamodels: [[schemaPath, schema]] },
    log,
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  ) as Promise<SchemaEngine>;
}
