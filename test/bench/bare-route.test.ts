import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite } from "../../src/store/pglite.js";
import { embeddedCliEnv, freePort, repoRoot, runCli, waitUntilHealthy } from "../helpers/processes.js";

// bench:load's third limit is only as honest as the work it does: a rename's records, each written once.
describe("the bare route's rename's statements (bench/bare-route.ts … rename)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-bare-route-"));
  let route: ChildProcess | undefined;
  afterAll(() => {
    route?.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("renames the user and writes the activity, its vote, its evaluations and its audit event, once per body", async () => {
    const init = runCli(["init", "--data-dir", dataDir], embeddedCliEnv());
    expect(init.status, init.stderr).toBe(0);
    const root = JSON.parse(init.stdout) as { organizationId: string; userId: string; apiPublicKey: string; apiPrivateKey: string };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    route = spawn(process.execPath, ["--import", "tsx", "bench/bare-route.ts", String(port), `pglite:${dataDir}`, "rename"], {
      cwd: repoRoot,
      stdio: "ignore",
    });
    await waitUntilHealthy(url, route, 180_000);

    const stamper = new ApiKeyStamper({ apiPublicKey: root.apiPublicKey, apiPrivateKey: root.apiPrivateKey });
    const send = async (body: string, stampedBody = body) => {
      const { stampHeaderName, stampHeaderValue } = await stamper.stamp(stampedBody);
      return fetch(`${url}/public/v1/submit/update_user_name`, { method: "POST", headers: { [stampHeaderName]: stampHeaderValue }, body });
    };
    const body = (userName: string) =>
      JSON.stringify({
        type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
        timestampMs: String(Date.now()),
        organizationId: root.organizationId,
        parameters: { userId: root.userId, userName },
      });
    const renamed = body("renamed by the limit");
    expect((await send(renamed)).status).toBe(200);
    // The same body again: its fingerprint is taken, so the transaction (UPDATE included) rolls back.
    expect((await send(renamed)).status).toBe(500);
    // A stamp over other bytes: refused before anything is written.
    expect((await send(body("never written"), body("something else"))).status).not.toBe(200);
    route.kill("SIGKILL");
    await new Promise((resolve) => route!.once("exit", resolve));

    const db = await openPglite(dataDir);
    try {
      const [user] = await db.query<{ name: string }>("SELECT name FROM users WHERE id = $1", [root.userId]);
      expect(user?.name).toBe("renamed by the limit");
      const activities = await db.query<{ id: string; status: string; result: unknown }>(
        "SELECT id, status, result FROM activities WHERE type = 'ACTIVITY_TYPE_UPDATE_USER_NAME'",
      );
      expect(activities).toEqual([
        { id: expect.any(String), status: "ACTIVITY_STATUS_COMPLETED", result: { updateUserNameResult: { userId: root.userId } } },
      ]);
      const activityId = activities[0]!.id;
      const votes = await db.query<{ user_id: string; message: string }>("SELECT user_id, message FROM votes WHERE activity_id = $1", [
        activityId,
      ]);
      expect(votes).toEqual([{ user_id: root.userId, message: renamed }]);
      expect(await db.query("SELECT 1 FROM policy_evaluations WHERE activity_id = $1", [activityId])).toHaveLength(1);
      const events = await db.query<{ event: string }>("SELECT event FROM audit_pending");
      expect(events.filter((e) => e.event.includes(activityId))).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});
