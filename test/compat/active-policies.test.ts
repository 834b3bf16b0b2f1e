import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { httpClient } from "../helpers/velocity-controls.js";

describe("get_active_policies through @turnkey/http 6.6.0", () => {
  let server: TestServer;
  /** The server's clock: a fixed instant the test moves. */
  const base = Date.now();
  let aheadMs = 0;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(base + aheadMs) });
  });
  afterAll(async () => server.close());

  it("evaluates every policy's time window at the server's clock and says when (evaluatedAtMs)", async () => {
    const opens = new Date(base + 30 * 60_000).toISOString();
    const policy = (policyName: string, time?: string) =>
      server.client().createPolicy({ policyName, effect: "EFFECT_ALLOW", condition: "false", notes: "", ...(time ? { time } : {}) });
    const always = (await policy("always")).policyId;
    const later = (await policy("from half an hour on", `time.now >= Timestamp('${opens}')`)).policyId;
    const past = (await policy("until 2001", "time.now < Timestamp('2001-01-01T00:00:00Z')")).policyId;
    const http = httpClient(server.url, { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! });
    const ask = () => http.getActivePolicies({ organizationId: server.root.organizationId });
    const organizationId = server.root.organizationId;

    const now = await ask();
    expect(now.evaluatedAtMs).toBe(String(base));
    expect(now.statuses).toEqual([
      { organizationId, policyId: always, active: true },
      { organizationId, policyId: later, active: false, timeExpr: `time.now >= Timestamp('${opens}')` },
      { organizationId, policyId: past, active: false, timeExpr: "time.now < Timestamp('2001-01-01T00:00:00Z')" },
    ]);

    aheadMs = 31 * 60_000;
    const afterwards = await ask();
    expect(afterwards.evaluatedAtMs).toBe(String(base + aheadMs));
    expect(afterwards.statuses.map((s) => s.active)).toEqual([true, true, false]);
  });
});
