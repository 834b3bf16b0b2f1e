import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATED_PAGES, withGeneratedTables } from "../../src/server/docs-tables.js";

const repoRoot = join(import.meta.dirname, "../..");
const read = (page: string) => readFileSync(join(repoRoot, page), "utf8");

describe("README and docs/", () => {
  const readme = read("README.md");

  it("starts with the install, start and test commands", () => {
    const head = readme.split("\n").slice(0, 8).join("\n");
    for (const command of ["npm install", "npm start", "npm test"]) expect(head).toContain(command);
  });

  it.each(GENERATED_PAGES)(
    "%s lists exactly the operations and address formats the code serves (run `npm run docs` after adding one)",
    (page) => {
      const text = read(page);
      expect(text).toBe(withGeneratedTables(page, text));
    },
  );

  it("links only to pages and headings that exist", () => {
    const pages = [
      "README.md",
      ...readdirSync(join(repoRoot, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const slug = (title: string) =>
      title
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, "")
        .replace(/ /g, "-");
    const anchors = new Map(pages.map((page) => [page, new Set([...read(page).matchAll(/^#{1,4} (.*)$/gm)].map((m) => slug(m[1]!)))]));
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target, anchor] of read(page).matchAll(/\]\(([^)#\s]*\.md)?(?:#([a-z0-9-]+))?\)/g)) {
        const resolved = target ? join(page, "..", target).replace(/\\/g, "/") : page;
        if (!target && !anchor) continue;
        if (anchors.has(resolved) ? anchor && !anchors.get(resolved)!.has(anchor) : !existsSync(join(repoRoot, resolved)))
          broken.push(`${page} → ${target ?? ""}#${anchor ?? ""}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
