import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SUPPLEMENT_DEFINITIONS, SUPPLEMENT_FIELDS, SUPPLEMENT_PATHS } from "./upstream-supplement.js";
import { isServedPath } from "../../src/server/app.js";
import { UNSERVED_PATHS } from "../../src/server/unserved.js";

/** @turnkey/http's generated types: the definitions' fields (optional or not) and the paths of its client. */
const require = createRequire(import.meta.url);
const generated = join(dirname(require.resolve("@turnkey/http")), "__generated__/services/coordinator/public/v1");
const types = readFileSync(join(generated, "public_api.types.d.ts"), "utf8");
const fetcher = readFileSync(join(generated, "public_api.fetcher.js"), "utf8");
const definitions = new Map<string, Map<string, boolean>>();
{
  const block = types.slice(types.indexOf("export type definitions = {"), types.indexOf("export type operations"));
  let current: Map<string, boolean> | undefined;
  for (const line of block.split("\n")) {
    const opened = /^ {4}(\w+): \{$/.exec(line);
    if (opened) definitions.set(opened[1]!, (current = new Map()));
    else if (/^ {4}\};?$/.test(line)) current = undefined;
    const field = /^ {8}(\w+)(\??): .*;$/.exec(line);
    if (current && field) current.set(field[1]!, field[2] === "");
  }
}
const clientPaths = new Set([...fetcher.matchAll(/"(\/(?:public|tkhq)\/[A-Za-z0-9_/-]+)"/g)].map((m) => m[1]!));

describe("the supplement of the upstream description (what @turnkey/http 6.6.0 added)", () => {
  it("transcribes every field of its definitions, required as 6.6.0 requires them", () => {
    for (const [name, schema] of Object.entries(SUPPLEMENT_DEFINITIONS)) {
      if (schema.enum) {
        const line = new RegExp(`^ {4}${name}: (.*);$`, "m").exec(types)?.[1];
        expect(
          line?.split(" | ").map((value) => JSON.parse(value) as string),
          name,
        ).toEqual(schema.enum);
        continue;
      }
      const upstream = definitions.get(name);
      expect(upstream, name).toBeDefined();
      expect(Object.keys(schema.properties ?? {}).sort(), name).toEqual([...upstream!.keys()].sort());
      expect([...(schema.required ?? [])].sort(), name).toEqual(
        [...upstream!]
          .filter(([, required]) => required)
          .map(([field]) => field)
          .sort(),
      );
    }
    for (const [name, fields] of Object.entries(SUPPLEMENT_FIELDS))
      for (const field of Object.keys(fields)) expect(definitions.get(name)?.has(field), `${name}.${field}`).toBe(true);
  });

  it("names only paths of the 6.6.0 client", () => {
    expect(Object.keys(SUPPLEMENT_PATHS).filter((path) => !clientPaths.has(path))).toEqual([]);
  });

  it("leaves no path of the 6.6.0 client unknown: each is served or refused as hosted-only", () => {
    expect([...clientPaths].filter((path) => !isServedPath(path) && !(path in UNSERVED_PATHS))).toEqual([]);
  });
});
