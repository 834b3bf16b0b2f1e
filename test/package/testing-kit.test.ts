import { Turnkey } from "@turnkey/sdk-server";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as TestingKit from "../../src/testing/index.js";

const repoRoot = join(import.meta.dirname, "../..");

/** Imported by the package's own name, as a project would: the `./testing` export of package.json, i.e. dist/. */
describe('import { startStrongroom } from "strongroom/testing"', () => {
  let strongroom: TestingKit.Strongroom;
  beforeAll(async () => {
    const build = spawnSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: repoRoot, encoding: "utf8", timeout: 300_000 });
    expect(build.status, build.stderr).toBe(0);
    const specifier = "strongroom/testing";
    const kit = (await import(specifier)) as typeof TestingKit;
    strongroom = await kit.startStrongroom();
  }, 360_000);
  afterAll(() => strongroom?.close());

  const api = () =>
    new Turnkey({
      apiBaseUrl: strongroom.baseUrl,
      apiPublicKey: strongroom.apiPublicKey,
      apiPrivateKey: strongroom.apiPrivateKey,
      defaultOrganizationId: strongroom.organizationId,
    }).apiClient();

  it("gives a running server and root credentials that @turnkey/sdk-server uses as they are", async () => {
    expect(strongroom.authProxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(strongroom.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    const { organizationId, userId } = await api().getWhoami({});
    expect(organizationId).toBe(strongroom.organizationId);
    expect(userId).toBe(strongroom.userId);
  });

  it("reset() forgets what tests created; the clock moves forward", async () => {
    await api().createWallet({ walletName: "temporary", accounts: [] });
    expect((await api().getWallets({})).wallets).toHaveLength(1);
    await strongroom.reset();
    expect((await api().getWallets({})).wallets).toHaveLength(0);
    const before = strongroom.clock.now().getTime();
    expect(strongroom.clock.advance(3600).getTime() - before).toBeGreaterThanOrEqual(3600_000);
  });
});

/** The test kit's example in docs/development.md ("wallets.test.mjs"), run as printed by vitest in a directory of its own. */
describe("the test kit example in docs/development.md", () => {
  const dir = join(repoRoot, "scratch", `docs-test-kit-example-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes: a wallet is created, and a key expires when the clock moves while the root key's real stamps stay fresh", () => {
    const page = readFileSync(join(repoRoot, "docs/development.md"), "utf8");
    const start = page.indexOf("```js\n// wallets.test.mjs");
    expect(start).toBeGreaterThan(0);
    const body = page.slice(start + "```js\n".length, page.indexOf("```\n", start + 6));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "wallets.test.mjs"), body);
    writeFileSync(join(dir, "vitest.config.mjs"), "export default { test: { testTimeout: 120000, hookTimeout: 240000 } };\n");
    const run = spawnSync(process.execPath, [join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--root", dir], {
      cwd: dir,
      encoding: "utf8",
      timeout: 400_000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Tests\s+2 passed/);
  }, 420_000);
});
