import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { embeddedEnv, sdkClient, type RootCredentials } from "../helpers/cluster.js";
import { startServerProcess } from "../helpers/processes.js";

/**
 * The first start of a new data directory writes the migrated template to disk (src/store/unpack-data-dir.ts)
 * instead of running initdb: what is acknowledged right after that start survives a SIGKILL, and a start cut off
 * while unpacking (its `pgdata.unpacking` left behind) is started again from scratch.
 */
describe("a new data directory", () => {
  it("keeps what its first start acknowledged through a SIGKILL, after an unpacking cut off by an earlier crash", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-new-data-dir-"));
    try {
      // What a crash part-way through unpacking leaves: a partial copy beside where pgdata/ will be.
      mkdirSync(join(dataDir, "pgdata.unpacking", "base"), { recursive: true });
      writeFileSync(join(dataDir, "pgdata.unpacking", "PG_VERSION"), "garbage");
      const env = embeddedEnv(dataDir);
      let server = await startServerProcess(env);
      const root = JSON.parse(readFileSync(join(dataDir, "initial-credentials.json"), "utf8")) as RootCredentials;
      let client = sdkClient(server.url, root, root.organizationId);
      const userIds: string[] = [];
      try {
        for (let n = 0; n < 5; n++) {
          const created = await client.createUsers({
            users: [{ userName: `user ${n}`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
          });
          userIds.push(created.userIds[0]!);
        }
        await server.kill();
        expect(existsSync(join(dataDir, "pgdata.unpacking"))).toBe(false);

        server = await startServerProcess(env);
        client = sdkClient(server.url, root, root.organizationId);
        for (const [n, userId] of userIds.entries()) expect((await client.getUser({ userId })).user.userName).toBe(`user ${n}`);
        const renamed = await client.updateUserName({ userId: userIds[0]!, userName: "renamed" });
        expect(renamed.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
        await server.kill();

        server = await startServerProcess(env);
        client = sdkClient(server.url, root, root.organizationId);
        expect((await client.getUser({ userId: userIds[0]! })).user.userName).toBe("renamed");
      } finally {
        await server.kill();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
