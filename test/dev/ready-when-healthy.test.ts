import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { describe, expect, it } from "vitest";
import { startDevServer } from "../../src/dev/start-dev-server.js";
import { freePort } from "../helpers/processes.js";

/**
 * CI pins the dev server's organization and key, waits for /health and starts its tests: the organization must
 * exist by the first 200, with its auth proxy enabled and its seed applied, not a moment later.
 */
describe("the dev server's first /health", () => {
  it("answers only once the pinned organization, its auth proxy and its seed exist", async () => {
    const key = generateP256KeyPair();
    const organizationId = "6f1f2c1e-2222-4222-8333-444455556666";
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = startDevServer({
      organizationId,
      apiPrivateKey: key.privateKey,
      port,
      authProxyPort: 0,
      logLevel: "silent",
      seed: { users: [{ userName: "alice" }] },
    });
    let started = false;
    // Settled either way: a start that fails ends the polling too (and `await starting` below rethrows its error).
    void starting.then(
      () => (started = true),
      () => (started = true),
    );
    // Polled often, in the same process, so that a 200 before the organization exists would be seen.
    while (
      !started &&
      !(await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 2));
    const client = new Turnkey({
      apiBaseUrl: url,
      apiPublicKey: key.publicKey,
      apiPrivateKey: key.privateKey,
      defaultOrganizationId: organizationId,
    }).apiClient();
    const [whoami, users] = await Promise.allSettled([client.getWhoami({}), client.getUsers({})]);
    const dev = await starting;
    try {
      expect(whoami.status === "fulfilled" ? whoami.value.organizationId : String(whoami.reason)).toBe(organizationId);
      expect(users.status === "fulfilled" ? users.value.users.map((u) => u.userName).sort() : String(users.reason)).toEqual([
        "Auth Proxy", // the auth proxy's user: it is enabled
        "Developer",
        "alice",
      ]);
    } finally {
      await dev.close();
    }
  });
});
