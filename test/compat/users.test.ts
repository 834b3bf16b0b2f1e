import { p256 } from "@noble/curves/nist.js";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyRequestError } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

describe("users and user tags through @turnkey/sdk-server", () => {
  let server: TestServer;
  let bob: { userId: string; key: ReturnType<typeof generateP256KeyPair> };
  beforeAll(async () => {
    server = await startTestServer();
    const { userId, key } = await createUserWithApiKey(server.client(), "bob", { userEmail: "bob@example.com", apiKeyName: "bob" });
    bob = { userId, key };
  });
  afterAll(async () => server.close());
  const asBob = () => server.client({ apiPublicKey: bob.key.publicKey, apiPrivateKey: bob.key.privateKey });

  it("lists and reads users with their credentials", async () => {
    const { users } = await server.client().getUsers({});
    expect(users.map((u) => u.userName).sort()).toEqual(["Root user", "bob"]);
    const { user } = await server.client().getUser({ userId: bob.userId });
    expect(user).toMatchObject({
      userId: bob.userId,
      userName: "bob",
      userEmail: "bob@example.com",
      userTags: [],
      oauthProviders: [],
      authenticators: [],
    });
    expect(user.apiKeys[0]?.credential).toEqual({ publicKey: bob.key.publicKey, type: "CREDENTIAL_TYPE_API_KEY_P256" });
  });

  it("refuses a second user with the same name, naming it", async () => {
    const result = await server.client().createUsers({
      users: [{ userName: "bob", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    expect(result.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(result.activity.failure?.message).toContain('"bob"');
  });

  it("lets neither a user rename themselves (a name can carry permissions) nor delete others; an admin renames them", async () => {
    const selfRenamed = await refusal(asBob().updateUserName({ userId: bob.userId, userName: "robert" }));
    expect(selfRenamed.code).toBe(7);
    const renamed = await server.client().updateUserName({ userId: bob.userId, userName: "robert" });
    expect(renamed.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getUser({ userId: bob.userId })).user.userName).toBe("robert");
    const denied = await asBob()
      .deleteUsers({ userIds: [server.root.userId] })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(TurnkeyRequestError);
    expect((denied as TurnkeyRequestError).code).toBe(7);
    expect((denied as Error).message).toContain(bob.userId);
  });

  it("renames to the user's own name, but not to another user's or a user that does not exist", async () => {
    const { user } = await server.client().getUser({ userId: server.root.userId });
    const same = await server.client().updateUserName({ userId: server.root.userId, userName: user.userName });
    expect(same.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const taken = await server.client().updateUserName({ userId: server.root.userId, userName: "robert" });
    expect(taken.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(taken.activity.failure?.message).toContain('userName: a user named "robert" already exists');
    // A user that does not exist is bad input, refused at submission (issue 14).
    const missing = await refusal(server.client().updateUserName({ userId: "00000000-0000-4000-8000-000000000000", userName: "nobody" }));
    expect(missing.code).toBe(3);
    expect(missing.message).toContain('userId: no user "00000000-0000-4000-8000-000000000000"');
    const names = (await server.client().getUsers({})).users.map((u) => u.userName).sort();
    expect(names).toEqual([user.userName, "robert"].sort());
  });

  it("updates and removes an email, checking verification tokens", async () => {
    const { token } = await issueVerificationToken(
      server.services.signer,
      // As verify_otp issues it: for the organization, bound to the key that stamps the update (the root user's).
      {
        verificationType: "OTP_TYPE_EMAIL",
        contact: "new@example.com",
        organizationId: server.root.organizationId,
        publicKey: server.root.apiPublicKey,
      },
      300,
    );
    const ok = await server.client().updateUserEmail({ userId: bob.userId, userEmail: "new@example.com", verificationToken: token });
    expect(ok.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getUser({ userId: bob.userId })).user.userEmail).toBe("new@example.com");

    const wrongContact = await refusal(
      server.client().updateUserEmail({ userId: bob.userId, userEmail: "other@example.com", verificationToken: token }),
    );
    expect(wrongContact.code).toBe(3);
    expect(wrongContact.message).toContain("another contact");

    const foreignSigner = serverKeyFromSecret(p256.utils.randomSecretKey());
    const forged = await issueVerificationToken(foreignSigner, { verificationType: "OTP_TYPE_EMAIL", contact: "forged@example.com" }, 300);
    const refused = await refusal(
      server.client().updateUserEmail({ userId: bob.userId, userEmail: "forged@example.com", verificationToken: forged.token }),
    );
    expect(refused.code).toBe(3);
    expect((await server.client().getUser({ userId: bob.userId })).user.userEmail).toBe("new@example.com");

    await server.client().updateUserEmail({ userId: bob.userId, userEmail: "" });
    expect((await server.client().getUser({ userId: bob.userId })).user.userEmail).toBeUndefined();
  });

  it("creates, updates, lists and deletes user tags", async () => {
    const created = await server.client().createUserTag({ userTagName: "ops", userIds: [bob.userId] });
    expect(created.userIds).toEqual([bob.userId]);
    const duplicate = await server.client().createUserTag({ userTagName: "ops", userIds: [] });
    expect(duplicate.activity.status).toBe("ACTIVITY_STATUS_FAILED");

    await server.client().updateUserTag({
      userTagId: created.userTagId,
      newUserTagName: "operators",
      addUserIds: [server.root.userId],
      removeUserIds: [bob.userId],
    });
    const { userTags } = await server.client().listUserTags({});
    expect(userTags).toEqual([expect.objectContaining({ tagId: created.userTagId, tagName: "operators", tagType: "TAG_TYPE_USER" })]);
    expect((await server.client().getUser({ userId: server.root.userId })).user.userTags).toEqual([created.userTagId]);

    const deleted = await server.client().deleteUserTags({ userTagIds: [created.userTagId] });
    expect(deleted).toMatchObject({ userTagIds: [created.userTagId], userIds: [server.root.userId] });
    expect((await server.client().listUserTags({})).userTags).toEqual([]);
  });

  it("update_user changes only the fields given; by someone allowed to, never by the user alone", async () => {
    const before = (await server.client().getUser({ userId: bob.userId })).user;
    // update_user has no verification token: a contact set on oneself through it would be unproven.
    expect(
      (
        await refusal(
          asBob().updateUser({ userId: bob.userId, userEmail: "bob@example.org", userPhoneNumber: "+13214567890", userTagIds: [] }),
        )
      ).code,
    ).toBe(7);
    const profile = await server
      .client()
      .updateUser({ userId: bob.userId, userEmail: "bob@example.org", userPhoneNumber: "+13214567890", userTagIds: [] });
    expect(profile.activity.status, JSON.stringify(profile.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(profile.activity.intent).toHaveProperty("updateUserIntent.userPhoneNumber", "+13214567890");
    expect(profile.userId).toBe(bob.userId);
    expect((await server.client().getUser({ userId: bob.userId })).user).toMatchObject({
      userName: before.userName,
      userEmail: "bob@example.org",
      userPhoneNumber: "+13214567890",
    });

    const { userTagId: reviewers } = await server.client().createUserTag({ userTagName: "reviewers", userIds: [] });
    const { userTagId: signers } = await server.client().createUserTag({ userTagName: "signers", userIds: [bob.userId] });
    const selfTagged = await refusal(asBob().updateUser({ userId: bob.userId, userTagIds: [reviewers] }));
    expect(selfTagged.code).toBe(7);
    const retagged = await server
      .client()
      .updateUser({ userId: bob.userId, userName: "bobby", userEmail: "", userTagIds: [reviewers, reviewers] });
    expect(retagged.activity.status, JSON.stringify(retagged.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const after = (await server.client().getUser({ userId: bob.userId })).user;
    expect(after).toMatchObject({ userName: "bobby", userPhoneNumber: "+13214567890", userTags: [reviewers] });
    expect(after.userEmail).toBeUndefined();

    const unknownTag = await refusal(
      server.client().updateUser({ userId: bob.userId, userName: "changed", userTagIds: [signers, "no-such-tag"] }),
    );
    expect(unknownTag.code).toBe(3);
    expect(unknownTag.message).toContain('userTagIds[1]: no user tag "no-such-tag"');
    const takenName = await server.client().updateUser({ userId: bob.userId, userName: "Root user" });
    expect(takenName.activity.failure?.message).toContain('userName: a user named "Root user" already exists');
    const badPhone = await refusal(server.client().updateUser({ userId: bob.userId, userPhoneNumber: "555-0100" }));
    expect(badPhone.code).toBe(3);
    expect(badPhone.message).toContain("userPhoneNumber");
    expect((await server.client().getUser({ userId: bob.userId })).user).toMatchObject({
      userName: "bobby",
      userPhoneNumber: "+13214567890",
      userTags: [reviewers],
    });
    await server.client().deleteUserTags({ userTagIds: [reviewers, signers] });
  });

  it("update_user_phone_number sets and removes a phone number, checking verification tokens", async () => {
    const { token } = await issueVerificationToken(
      server.services.signer,
      {
        verificationType: "OTP_TYPE_SMS",
        contact: "+447700900123",
        organizationId: server.root.organizationId,
        publicKey: bob.key.publicKey,
      },
      300,
    );
    const set = await asBob().updateUserPhoneNumber({ userId: bob.userId, userPhoneNumber: "+447700900123", verificationToken: token });
    expect(set.activity.status, JSON.stringify(set.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(set.userId).toBe(bob.userId);
    expect((await server.client().getUser({ userId: bob.userId })).user.userPhoneNumber).toBe("+447700900123");

    const wrongContact = await refusal(
      server.client().updateUserPhoneNumber({ userId: bob.userId, userPhoneNumber: "+447700900999", verificationToken: token }),
    );
    expect(wrongContact.code).toBe(3);
    expect(wrongContact.message).toContain("another contact");
    const notE164 = await refusal(server.client().updateUserPhoneNumber({ userId: bob.userId, userPhoneNumber: "07700 900123" }));
    expect(notE164.message).toContain("E.164");
    expect((await server.client().getUser({ userId: bob.userId })).user.userPhoneNumber).toBe("+447700900123");

    await server.client().updateUserPhoneNumber({ userId: bob.userId, userPhoneNumber: "" });
    expect((await server.client().getUser({ userId: bob.userId })).user.userPhoneNumber).toBeUndefined();
  });

  it("refuses to delete a root-quorum user and deletes others", async () => {
    const refused = await server.client().deleteUsers({ userIds: [server.root.userId] });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain("root quorum");
    const deleted = await server.client().deleteUsers({ userIds: [bob.userId] });
    expect(deleted.userIds).toEqual([bob.userId]);
    expect((await server.client().getUsers({})).users.map((u) => u.userId)).toEqual([server.root.userId]);
  });
});
