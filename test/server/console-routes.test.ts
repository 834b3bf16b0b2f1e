import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** The console's files as the server hands them out (the suite's global setup builds them). */
describe("the console's routes", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it("serves the page and its assets under a Content-Security-Policy that allows only its own origin", async () => {
    const redirect = await fetch(`${server.url}/console`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/console/");

    const page = await fetch(`${server.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const policy = page.headers.get("content-security-policy")!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"])
      expect(policy).toContain(directive);
    const assets = [...(await page.text()).matchAll(/(?:src|href)="\/console\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((name) => name.endsWith(".js"))).toBe(true);
    for (const name of assets) {
      const asset = await fetch(`${server.url}/console/assets/${name}`);
      expect(asset.status, name).toBe(200);
      expect(asset.headers.get("cache-control")).toContain("immutable");
    }
  });

  it("serves nothing outside its build directory", async () => {
    for (const path of ["/console/assets/..%2F..%2Fpackage.json", "/console/assets/.hidden", "/console/assets/nothing.js"]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
    }
  });
});
