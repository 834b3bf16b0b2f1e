import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStrongroom, type Strongroom } from "../../src/testing/index.js";

/**
 * The test kit's clock moves what expires (here, a 24-hour approval); the official SDK keeps stamping with real
 * time, and those stamps stay fresh however far the clock has moved.
 */
describe("the test kit's clock and the SDK's stamps", () => {
  let strongroom: Strongroom;
  beforeAll(async () => {
    strongroom = await startStrongroom();
  }, 180_000);
  afterAll(() => strongroom?.close());

  const client = (key: { publicKey: string; privateKey: string }) =>
    new Turnkey({
      apiBaseUrl: strongroom.baseUrl,
      apiPublicKey: key.publicKey,
      apiPrivateKey: key.privateKey,
      defaultOrganizationId: strongroom.organizationId,
      activityPoller: { intervalMs: 10, numRetries: 2 },
    }).apiClient();

  it("lets a 24-hour approval lapse, after which the SDK (stamping real time) approves again and completes it", async () => {
    const root = client({ publicKey: strongroom.apiPublicKey, privateKey: strongroom.apiPrivateKey });
    const second = generateP256KeyPair();
    const { userIds } = await root.createUsers({
      users: [
        {
          userName: "second approver",
          apiKeys: [{ apiKeyName: "k", publicKey: second.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    await root.updateRootQuorum({ threshold: 2, userIds: [strongroom.userId, userIds[0]!] });
    const approver = client(second);

    const submitted = await root.createUserTag({ userTagName: "slow", userIds: [] }).catch((error: unknown) => error);
    const [pending] = (await root.getActivities({ filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED"] })).activities;
    expect(pending?.type, String(submitted)).toBe("ACTIVITY_TYPE_CREATE_USER_TAG");

    strongroom.clock.advance(25 * 60 * 60); // the root user's approval lapses (24 hours)
    const late = await approver.approveActivity({ fingerprint: pending!.fingerprint });
    expect(late.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    // A day later by the server's clock, the root user's fresh stamp is accepted and decides it.
    const again = await root.approveActivity({ fingerprint: pending!.fingerprint });
    expect(again.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { userTags } = await root.listUserTags({});
    expect(userTags.map((tag) => tag.tagName)).toContain("slow");
    expect((await root.getWhoami({})).userId).toBe(strongroom.userId);
  });
});
