import { PGlite } from "@electric-sql/pglite";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inOneWrite, PG_VERSION_WRITTEN_AGAINST } from "../../src/store/pg-internals.js";
import { PGLITE_VERSION_WRITTEN_AGAINST, pgliteEngine } from "../../src/store/pglite-internals.js";

/**
 * The adapters use PGlite and pg below their documented APIs, each in one file (src/store/pglite-internals.ts,
 * src/store/pg-internals.ts), against an exactly pinned version. These fail loudly when an upgrade moves either.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

/** The installed package's own package.json (PGlite's `exports` does not expose it to `require`). */
function installedVersion(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const manifest = readJson(join(dir, "package.json"));
      if (manifest.name === name) return manifest.version as string;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) throw new Error(`no package.json for ${name}`);
    dir = dirname(dir);
  }
}

describe("the versions the store's internals were written against", () => {
  const manifest = readJson(join(root, "package.json")) as { dependencies: Record<string, string> };
  const lock = readJson(join(root, "package-lock.json")) as { packages: Record<string, { dependencies?: Record<string, string> }> };

  for (const [name, writtenAgainst] of [
    ["@electric-sql/pglite", PGLITE_VERSION_WRITTEN_AGAINST],
    ["pg", PG_VERSION_WRITTEN_AGAINST],
  ] as const) {
    it(`${name} is pinned exactly to ${writtenAgainst}, in package.json and package-lock.json, and installed`, () => {
      expect(manifest.dependencies[name], "package.json").toBe(writtenAgainst);
      expect(lock.packages[""]!.dependencies![name], "package-lock.json").toBe(writtenAgainst);
      expect(installedVersion(name), "node_modules").toBe(writtenAgainst);
    });
  }
});

describe("PGlite's internals (src/store/pglite-internals.ts)", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("are all there, and an engine missing one is refused at open with the version they were written against", () => {
    expect(() => pgliteEngine(db)).not.toThrow();
    expect(() => pgliteEngine({} as PGlite)).toThrow(/_runExclusiveTransaction.*serializers.*parsers.*written against 0\.5\.16/);
  });

  it("run a statement through the wire protocol, and hold PGlite's own queries off while in the transaction mutex", async () => {
    const engine = pgliteEngine(db);
    const { message } = engine;
    const call = (messages: Uint8Array[]) => db.execProtocolStream(new Uint8Array(Buffer.concat(messages)), { syncToFs: false });
    const sql = "SELECT $1::jsonb AS value, $2::timestamptz AS at, $3::int AS n";
    const types = engine.parameterTypes(await call([message.parse("s1", sql), message.describeStatement("s1"), message.sync()]));
    expect(types).toEqual([3802, 1184, 23]);
    const values = [engine.serialize({ a: [1] }, types[0]!), engine.serialize(new Date(0), types[1]!), engine.serialize(7, types[2]!)];
    const answer = await call([message.bind("s1", values), message.describePortal(), message.execute(), message.sync()]);
    expect(engine.rows(answer)).toEqual([{ value: { a: [1] }, at: new Date(0), n: 7 }]);
    expect(engine.command(await call([message.query("BEGIN")]))).toBe("BEGIN");
    expect(engine.command(await call([message.query("COMMIT")]))).toBe("COMMIT");

    const events: string[] = [];
    const held = engine.exclusiveTransaction(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the query waits in the mutex, which shows nothing: the window it would use
      events.push("mutex released");
    });
    const own = db.query("SELECT 1").then(() => events.push("PGlite's own query ran"));
    await Promise.all([held, own]);
    expect(events).toEqual(["mutex released", "PGlite's own query ran"]);
  });
});

describe("pg's internals (src/store/pg-internals.ts)", () => {
  it("a client's socket can be corked around several writes; a client without one is refused with the version", () => {
    const client = new pg.Client();
    const corked: string[] = [];
    const stream = client.connection.stream as unknown as { cork(): void; uncork(): void };
    const { cork, uncork } = stream;
    stream.cork = () => void (corked.push("cork"), cork.call(stream));
    stream.uncork = () => void (corked.push("uncork"), uncork.call(stream));
    expect(inOneWrite(client, () => (corked.push("issued"), 42))).toBe(42);
    expect(corked).toEqual(["cork", "issued", "uncork"]);
    expect(() => inOneWrite({} as pg.Client, () => 0)).toThrow(/connection\.stream.*written against 8\.23\.1/);
  });
});
