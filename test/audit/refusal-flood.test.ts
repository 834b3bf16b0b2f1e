import { generateP256KeyPair } from "@turnkey/crypto";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey, userWithApiKey } from "../helpers/users.js";
import { AUDIT_TEST_ENV, settled, strongroomQuery } from "./helpers.js";

type Entry = Record<string, unknown> & { type: string };

const PER_MINUTE = 5;

/**
 * Anyone who knows an organization's id can have requests refused naming it. The log records the first
 * STRONGROOM_AUDIT_REFUSALS_PER_MINUTE of a minute per requester in full and counts the rest into one entry once
 * the minute is over, so a flood of forged stamps grows the log by a bounded number of entries.
 */
describe("audit log under a flood of refused requests", () => {
  let server: TestServer;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    server = await startTestServer({
      env: { ...AUDIT_TEST_ENV, STRONGROOM_AUDIT_REFUSALS_PER_MINUTE: String(PER_MINUTE) },
      clock: () => new Date(Date.now() + clockOffsetMs),
    });
  });
  afterAll(() => server?.close());

  const entries = async (): Promise<Entry[]> => {
    const listed = await strongroomQuery(server, "list_audit_entries", { limit: 1000 });
    expect(listed.status).toBe(200);
    return (listed.json.entries as Array<{ entry: string }>).map((e) => JSON.parse(e.entry) as Entry);
  };

  const forgedStamp = async (organizationId: string) => {
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", organizationId, { userTagName: "x", userIds: [] });
    const response = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
      "X-Stamp": p256Stamp(body, server.root.apiPublicKey, generateP256KeyPair().privateKey),
    });
    expect(response.status).toBe(401);
  };

  it("records a minute's budget of refusals per requester in full and counts the rest into one entry each", async () => {
    const bob = await createUserWithApiKey(server.client(), "bob");
    const asBob = server.client(bob.credentials);
    await settled(server.services.db);
    const before = (await entries()).length;

    for (let i = 0; i < 40; i++) await forgedStamp(server.root.organizationId);
    // Naming an organization that does not exist records nothing and holds no budget.
    for (let i = 0; i < 10; i++) await forgedStamp(randomUUID());
    for (let i = 0; i < 7; i++) {
      const carol = generateP256KeyPair();
      await expect(asBob.createUsers({ users: [{ ...userWithApiKey(`carol ${i}`, carol.publicKey), userTags: [] }] })).rejects.toThrow(
        /implicit deny/,
      );
    }
    await settled(server.services.db);
    const during = (await entries()).slice(before);
    const refused = during.filter((e) => e.type === "activity.refused");
    expect(refused.filter((e) => e.requester === undefined)).toHaveLength(PER_MINUTE);
    expect(refused.filter((e) => (e.requester as { userId?: string } | undefined)?.userId === bob.userId)).toHaveLength(PER_MINUTE);
    expect(during.filter((e) => e.type === "refusals.counted")).toEqual([]);

    // The minute is over: the integrator writes what it counted.
    clockOffsetMs = 61_000;
    let counted: Entry[] = [];
    for (let waited = 0; counted.length < 2 && waited < 10_000; waited += 50) {
      await sleep(50);
      await settled(server.services.db);
      counted = (await entries()).slice(before).filter((e) => e.type === "refusals.counted");
    }
    const anonymous = counted.find((e) => e.requester === undefined);
    expect(anonymous).toMatchObject({
      organizationId: server.root.organizationId,
      count: 40 - PER_MINUTE,
      outcomes: [{ kind: "activity", operation: "create_user_tag", httpStatus: 401, count: 40 - PER_MINUTE }],
    });
    expect(Date.parse(anonymous!.first as string)).toBeLessThanOrEqual(Date.parse(anonymous!.last as string));
    expect(counted.find((e) => e.requester !== undefined)).toMatchObject({
      requester: { userId: bob.userId },
      count: 7 - PER_MINUTE,
      outcomes: [{ kind: "activity", operation: "create_users", httpStatus: 403, count: 7 - PER_MINUTE }],
    });
    // 57 refusals, 12 entries: each requester's budget plus one count.
    const after = (await entries()).slice(before).filter((e) => e.type.includes("refus"));
    expect(after).toHaveLength(2 * PER_MINUTE + 2);
  });
});
