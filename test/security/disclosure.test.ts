import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { userWithApiKey } from "../helpers/users.js";

type Key = { publicKey: string; privateKey: string };

describe("what callers who are not members learn", () => {
  let server: TestServer;
  let sub: { organizationId: string; key: Key };
  beforeAll(async () => {
    server = await startTestServer();
    const pair = generateP256KeyPair();
    const created = await server
      .client()
      .createSubOrganization({ subOrganizationName: "bob's", rootQuorumThreshold: 1, rootUsers: [userWithApiKey("bob", pair.publicKey)] });
    sub = { organizationId: created.subOrganizationId, key: { publicKey: pair.publicKey, privateKey: pair.privateKey } };
  });
  afterAll(async () => server.close());

  it("an unknown API key stamping for a sub-organization is told 401 without the parent organization's id", async () => {
    const stranger = generateP256KeyPair();
    const asStranger = server.client({ apiPublicKey: stranger.publicKey, apiPrivateKey: stranger.privateKey }, sub.organizationId);
    for (const call of [
      () => asStranger.getWhoami({ organizationId: sub.organizationId }),
      () => asStranger.createUserTag({ userTagName: "x", userIds: [] }),
    ]) {
      const refused = await refusal(call());
      expect(refused.code).toBe(16);
      expect(refused.message).toContain(sub.organizationId);
      expect(refused.message).not.toContain(server.root.organizationId);
    }
  });

  it("an unknown passkey stamping for a sub-organization is told 401 without the parent organization's id", async () => {
    const stranger = new SoftwareAuthenticator();
    stranger.install();
    const client = new TurnkeyClient({ baseUrl: server.url }, new WebauthnStamper({ rpId: stranger.rpId }));
    const error = (await client.getWhoami({ organizationId: sub.organizationId }).catch((e: unknown) => e)) as {
      code?: number;
      message: string;
    };
    expect(error.code).toBe(16);
    expect(error.message).toContain(sub.organizationId);
    expect(error.message).not.toContain(server.root.organizationId);
  });

  it("voting on another organization's fingerprint answers exactly as for a fingerprint that does not exist", async () => {
    const { activity } = await server.client().createUserTag({ userTagName: "root's own", userIds: [] });
    const theirs = activity.fingerprint;
    const nowhere = `sha256:${"ab".repeat(32)}`;
    const before = await rowCounts(server.services.db);
    const vote = async (operation: string, type: string, fingerprint: string) => {
      const body = activityBody(type, sub.organizationId, { fingerprint });
      return post(`${server.url}/public/v1/submit/${operation}`, body, {
        "X-Stamp": p256Stamp(body, sub.key.publicKey, sub.key.privateKey),
      });
    };
    for (const [operation, type] of [
      ["approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY"],
      ["reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY"],
    ] as const) {
      const foreign = await vote(operation, type, theirs);
      const missing = await vote(operation, type, nowhere);
      expect(foreign.status, JSON.stringify(foreign.json)).toBe(missing.status);
      expect(JSON.stringify(foreign.json).replaceAll(theirs, "FINGERPRINT")).toBe(
        JSON.stringify(missing.json).replaceAll(nowhere, "FINGERPRINT"),
      );
      const said = JSON.stringify(foreign.json);
      expect(said).not.toContain(activity.id);
      expect(said).not.toContain(server.root.organizationId);
    }
    expect(await rowCounts(server.services.db)).toEqual(before);
  });
});
