import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

/**
 * A definition `validatedByExecute` (update_user_name) runs `validate` only when its answer matters: a request is
 * answered exactly as if `validate` had run first — bad input is a 400 naming the field with nothing written, whether
 * the decision allows the activity at once, denies it or would make it wait — and a failure found only by `execute`
 * (the name is taken) is still the activity's failure.
 */
describe("validation left to the transaction (validatedByExecute)", () => {
  let server: TestServer;
  let bob: { userId: string; publicKey: string; privateKey: string };
  const unknownId = "00000000-0000-4000-8000-000000000000";

  beforeAll(async () => {
    server = await startTestServer();
    const { userId, key } = await createUserWithApiKey(server.client(), "bob");
    bob = { userId, publicKey: key.publicKey, privateKey: key.privateKey };
  });
  afterAll(async () => server.close());

  async function rename(parameters: { userId: string; userName: string }, as?: { publicKey: string; privateKey: string }) {
    const publicKey = as?.publicKey ?? server.root.apiPublicKey;
    const privateKey = as?.privateKey ?? server.root.apiPrivateKey!;
    const body = activityBody("ACTIVITY_TYPE_UPDATE_USER_NAME", server.root.organizationId, parameters);
    return post(`${server.url}/public/v1/submit/update_user_name`, body, { "X-Stamp": p256Stamp(body, publicKey, privateKey) });
  }

  it("allowed at once, a user that does not exist is a 400 naming userId, and nothing is written", async () => {
    const before = await rowCounts(server.services.db);
    const { status, json } = await rename({ userId: unknownId, userName: "nobody" });
    expect(status, JSON.stringify(json)).toBe(400);
    expect(json.message).toContain(`userId: no user "${unknownId}"`);
    expect(JSON.stringify(json.details)).toContain('"field":"userId"');
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("denied, a user that does not exist is still a 400 (bad input comes before the decision); an existing one is a 403", async () => {
    const before = await rowCounts(server.services.db);
    const missing = await rename({ userId: unknownId, userName: "nobody" }, bob);
    expect(missing.status, JSON.stringify(missing.json)).toBe(400);
    expect(missing.json.message).toContain(`userId: no user "${unknownId}"`);
    const denied = await rename({ userId: server.root.userId, userName: "taken over" }, bob);
    expect(denied.status, JSON.stringify(denied.json)).toBe(403);
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("a name another user has fails the activity (found by execute), and a free one renames", async () => {
    const taken = await rename({ userId: server.root.userId, userName: "bob" });
    expect(taken.status).toBe(200);
    expect((taken.json.activity as { status: string; failure?: { message: string } }).status).toBe("ACTIVITY_STATUS_FAILED");
    expect((taken.json.activity as { failure?: { message: string } }).failure?.message).toContain('a user named "bob" already exists');
    const renamed = await rename({ userId: bob.userId, userName: "robert" });
    expect((renamed.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getUser({ userId: bob.userId })).user.userName).toBe("robert");
  });
});
