import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { TurnkeyRequestError } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { getClientSignatureMessageForSignup, signWithApiKey } from "@turnkey/core";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { userWithApiKey } from "../helpers/users.js";

const withEmail = (name: string, publicKey: string) => userWithApiKey(name, publicKey, { userEmail: `${name}@example.com` });

describe("organizations, sub-organizations, root quorum, invitations and activity queries", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("creates a sub-organization whose root user acts in it, which the parent can read but not change", async () => {
    const alice = generateP256KeyPair();
    const created = await server.client().createSubOrganization({
      subOrganizationName: "Alice",
      rootQuorumThreshold: 1,
      rootUsers: [withEmail("alice", alice.publicKey)],
      disableSmsAuth: true,
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(created.activity.intent).toHaveProperty("createSubOrganizationIntentV8.subOrganizationName", "Alice");
    const subId = created.subOrganizationId;
    expect(created.rootUserIds).toHaveLength(1);

    const asAlice = server.client({ apiPublicKey: alice.publicKey, apiPrivateKey: alice.privateKey }, subId);
    expect(await asAlice.getWhoami({})).toMatchObject({ organizationId: subId, organizationName: "Alice", username: "alice" });
    const tag = await asAlice.createUserTag({ userTagName: "mine", userIds: [] });
    expect(tag.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const parentReads = await server.client(undefined, subId).getUsers({});
    expect(parentReads.users.map((u) => u.userName)).toEqual(["alice"]);
    const parentWrites = await server
      .client(undefined, subId)
      .createUserTag({ userTagName: "theirs", userIds: [] })
      .catch((e: unknown) => e);
    expect((parentWrites as TurnkeyRequestError).code).toBe(7);
    expect((parentWrites as Error).message).toContain("read-only");

    const configs = await asAlice.getOrganizationConfigs({});
    expect(configs.configs.quorum).toEqual({ threshold: 1, userIds: created.rootUserIds });
    expect(configs.configs.features).toContainEqual({ name: "FEATURE_NAME_SMS_AUTH", value: "false" });

    expect((await server.client().getSubOrgIds({})).organizationIds).toEqual([subId]);
    expect((await server.client().getSubOrgIds({ filterType: "EMAIL", filterValue: "ALICE@example.com" })).organizationIds).toEqual([
      subId,
    ]);
    expect((await server.client().getSubOrgIds({ filterType: "PUBLIC_KEY", filterValue: alice.publicKey })).organizationIds).toEqual([
      subId,
    ]);
    expect((await server.client().getSubOrgIds({ filterType: "NAME", filterValue: "Bob" })).organizationIds).toEqual([]);

    const nested = await asAlice.createSubOrganization({
      subOrganizationName: "nested",
      rootQuorumThreshold: 1,
      rootUsers: [withEmail("n", generateP256KeyPair().publicKey)],
    });
    expect(nested.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(nested.activity.failure?.details).toContainEqual(expect.objectContaining({ turnkeyErrorCode: "INVALID_ACTIVITY_CALLER" }));

    const byParent = await server
      .client(undefined, subId)
      .deleteSubOrganization({ deleteWithoutExport: true })
      .catch((e: unknown) => e);
    expect((byParent as TurnkeyRequestError).code).toBe(7);
    const deleted = await asAlice.deleteSubOrganization({ deleteWithoutExport: true });
    expect(deleted.subOrganizationUuid).toBe(subId);
    expect((await server.client().getSubOrgIds({})).organizationIds).toEqual([]);
  });

  it("refuses a threshold above the number of root users, creating nothing", async () => {
    const refused = await refusal(
      server.client().createSubOrganization({
        subOrganizationName: "Too strict",
        rootQuorumThreshold: 2,
        rootUsers: [withEmail("solo", generateP256KeyPair().publicKey)],
      }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("rootQuorumThreshold");
    expect((await server.client().getSubOrgIds({ filterType: "NAME", filterValue: "Too strict" })).organizationIds).toEqual([]);
  });

  it("finds sub-organizations by verified email or phone: proven at signup or by an update with a token, forgotten when the contact changes", async () => {
    // As verify_otp issues them: for an organization, bound to the client key that verified the code.
    const token = async (verificationType: string, contact: string, organizationId: string, publicKey: string) =>
      (await issueVerificationToken(server.services.signer, { verificationType, contact, organizationId, publicKey }, 300)).token;
    const verified = async (filterType: string, filterValue: string) =>
      (await server.client().getVerifiedSubOrgIds({ filterType, filterValue })).organizationIds;

    // A signup with a token carries the client signature of the token's key over the root user (as @turnkey/core signs it).
    const veraKey = generateP256KeyPair();
    const veraUser = { ...withEmail("vera", generateP256KeyPair().publicKey), userEmail: "Vera@Example.com" };
    const veraToken = await token("OTP_TYPE_EMAIL", "vera@example.com", server.root.organizationId, veraKey.publicKey);
    const signup = getClientSignatureMessageForSignup({
      verificationToken: veraToken,
      email: veraUser.userEmail,
      apiKeys: veraUser.apiKeys,
      authenticators: [],
      oauthProviders: [],
    });
    const vera = await server.client().createSubOrganization({
      subOrganizationName: "Vera",
      rootQuorumThreshold: 1,
      rootUsers: [veraUser],
      verificationToken: veraToken,
      clientSignature: {
        publicKey: veraKey.publicKey,
        scheme: "CLIENT_SIGNATURE_SCHEME_API_P256",
        message: signup.message,
        signature: await signWithApiKey({ content: signup.message, publicKey: veraKey.publicKey, privateKey: veraKey.privateKey }),
      },
    });
    const unaKey = generateP256KeyPair();
    const una = await server
      .client()
      .createSubOrganization({ subOrganizationName: "Una", rootQuorumThreshold: 1, rootUsers: [withEmail("una", unaKey.publicKey)] });
    const asUna = server.client({ apiPublicKey: unaKey.publicKey, apiPrivateKey: unaKey.privateKey }, una.subOrganizationId);
    const unaId = una.rootUserIds![0]!;

    expect(await verified("EMAIL", "VERA@example.COM")).toEqual([vera.subOrganizationId]);
    expect((await server.client().getSubOrgIds({ filterType: "EMAIL", filterValue: "una@example.com" })).organizationIds).toEqual([
      una.subOrganizationId,
    ]);
    expect(await verified("EMAIL", "una@example.com")).toEqual([]);

    await asUna.updateUserEmail({
      userId: unaId,
      userEmail: "una@example.com",
      verificationToken: await token("OTP_TYPE_EMAIL", "una@example.com", una.subOrganizationId, unaKey.publicKey),
    });
    await asUna.updateUserPhoneNumber({
      userId: unaId,
      userPhoneNumber: "+15550001111",
      verificationToken: await token("OTP_TYPE_SMS", "+15550001111", una.subOrganizationId, unaKey.publicKey),
    });
    expect(await verified("EMAIL", "una@example.com")).toEqual([una.subOrganizationId]);
    expect(await verified("PHONE_NUMBER", "+15550001111")).toEqual([una.subOrganizationId]);
    await asUna.updateUser({ userId: unaId, userName: "una", userEmail: "una@example.com", userTagIds: [] }); // unchanged: still verified
    expect(await verified("EMAIL", "una@example.com")).toEqual([una.subOrganizationId]);

    await asUna.updateUser({ userId: unaId, userEmail: "una@example.org", userPhoneNumber: "+15550002222", userTagIds: [] });
    expect(await verified("EMAIL", "una@example.org")).toEqual([]);
    expect(await verified("PHONE_NUMBER", "+15550002222")).toEqual([]);
    await asUna.updateUserEmail({ userId: unaId, userEmail: "una@example.com" }); // back, but without a token
    expect(await verified("EMAIL", "una@example.com")).toEqual([]);

    const badFilter = await refusal(server.client().getVerifiedSubOrgIds({ filterType: "NAME", filterValue: "Una" }));
    expect(badFilter.code).toBe(3);
    expect(badFilter.message).toContain('filterType: "NAME" is not EMAIL or PHONE_NUMBER');
  });

  it("reads the whole organization with @turnkey/http, renames it, and manages invitations", async () => {
    const http = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
    );
    const invited = await server.client().createInvitations({
      invitations: [
        {
          receiverUserName: "dave",
          receiverUserEmail: "dave@example.com",
          receiverUserTags: [],
          accessType: "ACCESS_TYPE_API",
          senderUserId: server.root.userId,
        },
      ],
    });
    expect(invited.invitationIds).toHaveLength(1);
    const renamed = await server.client().updateOrganizationName({ organizationName: "Renamed" });
    expect(renamed).toMatchObject({ organizationId: server.root.organizationId, organizationName: "Renamed" });

    const { organizationData } = await http.getOrganization({ organizationId: server.root.organizationId });
    expect(organizationData).toMatchObject({
      organizationId: server.root.organizationId,
      name: "Renamed",
      rootQuorum: { threshold: 1, userIds: [server.root.userId] },
      invitations: [
        expect.objectContaining({
          invitationId: invited.invitationIds[0],
          receiverEmail: "dave@example.com",
          status: "INVITATION_STATUS_CREATED",
        }),
      ],
    });
    await server.client().deleteInvitation({ invitationId: invited.invitationIds[0]! });
    expect((await http.getOrganization({ organizationId: server.root.organizationId })).organizationData.invitations).toEqual([]);
  });

  it("lists activities newest first with filters and pagination, and gets one", async () => {
    for (const name of ["t1", "t2", "t3"]) await server.client().createUserTag({ userTagName: name, userIds: [] });
    const all = await server.client().getActivities({ filterByType: ["ACTIVITY_TYPE_CREATE_USER_TAG"] });
    expect(
      all.activities.map((a) => (a.intent as { createUserTagIntent: { userTagName: string } }).createUserTagIntent.userTagName),
    ).toEqual(["t3", "t2", "t1"]);
    const page1 = await server
      .client()
      .getActivities({ filterByType: ["ACTIVITY_TYPE_CREATE_USER_TAG"], paginationOptions: { limit: "2" } });
    const page2 = await server.client().getActivities({
      filterByType: ["ACTIVITY_TYPE_CREATE_USER_TAG"],
      paginationOptions: { limit: "2", after: page1.activities[1]!.id },
    });
    expect([...page1.activities, ...page2.activities].map((a) => a.id)).toEqual(all.activities.map((a) => a.id));
    const failed = await server.client().getActivities({ filterByStatus: ["ACTIVITY_STATUS_FAILED"] });
    expect(failed.activities.every((a) => a.status === "ACTIVITY_STATUS_FAILED")).toBe(true);

    const one = await server.client().getActivity({ activityId: all.activities[0]!.id });
    expect(one.activity).toEqual(all.activities[0]);
    expect(one.activity.votes[0]).toMatchObject({
      userId: server.root.userId,
      selection: "VOTE_SELECTION_APPROVED",
      publicKey: server.root.apiPublicKey,
      scheme: "SIGNATURE_SCHEME_TK_API_P256",
    });
  });

  it("answers 404 for an activity id of another organization, naming it", async () => {
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "Other",
      rootQuorumThreshold: 1,
      rootUsers: [withEmail("other", generateP256KeyPair().publicKey)],
    });
    const rootActivity = (await server.client().getActivities({})).activities[0]!;
    const error = await server
      .client(undefined, subOrganizationId)
      .getActivity({ activityId: rootActivity.id })
      .catch((e: unknown) => e);
    expect((error as TurnkeyRequestError).code).toBe(5);
    expect((error as Error).message).toContain(subOrganizationId);
  });

  it("keeps a root user's activity waiting for consensus after the quorum threshold is raised", async () => {
    const second = generateP256KeyPair();
    const { userIds } = await server.client().createUsers({
      users: [
        {
          userName: "second root",
          apiKeys: [{ apiKeyName: "s", publicKey: second.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const asSecond = server.client({ apiPublicKey: second.publicKey, apiPrivateKey: second.privateKey });
    const denied = await asSecond.updateRootQuorum({ threshold: 1, userIds }).catch((e: unknown) => e);
    expect((denied as TurnkeyRequestError).code).toBe(7);

    await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, userIds[0]!] });
    const waiting = await server.client().createUserTag({ userTagName: "needs two", userIds: [] });
    expect(waiting.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await server.client().listUserTags({})).userTags.map((t) => t.tagName)).not.toContain("needs two");
  });
});
