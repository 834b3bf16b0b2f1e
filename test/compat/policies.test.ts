import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, verifyAppProofSignature } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { privateKeyToAccount } from "viem/accounts";
import { serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

type KeyPair = ReturnType<typeof generateP256KeyPair>;

/** A user of the root organization with one API key, and an SDK client acting as them. */
async function addUser(server: TestServer, name: string, userTags: string[] = []) {
  const { userId, key, credentials } = await createUserWithApiKey(server.client(), name, { userTags });
  return { userId, key, client: server.client(credentials) };
}

describe("policies and consensus through @turnkey/sdk-server", () => {
  describe("a 2-of-3 root quorum", () => {
    let server: TestServer;
    let bob: Awaited<ReturnType<typeof addUser>>;
    let carol: Awaited<ReturnType<typeof addUser>>;
    beforeAll(async () => {
      server = await startTestServer();
      bob = await addUser(server, "bob");
      carol = await addUser(server, "carol");
      await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, bob.userId, carol.userId] });
    });
    afterAll(async () => server.close());

    it("waits for a second root approval, then executes exactly once", async () => {
      const submitted = await server.client().createUserTag({ userTagName: "quorum tag", userIds: [] });
      expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      expect(submitted.activity.canApprove).toBe(false);
      expect((await server.client().listUserTags({})).userTags).toEqual([]);

      const seenByBob = await bob.client.getActivity({ activityId: submitted.activity.id });
      expect(seenByBob.activity).toMatchObject({ status: "ACTIVITY_STATUS_CONSENSUS_NEEDED", canApprove: true, canReject: true });

      const approved = await bob.client.approveActivity({ fingerprint: submitted.activity.fingerprint });
      expect(approved.activity.id).toBe(submitted.activity.id);
      expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect(approved.activity.votes).toHaveLength(2);
      expect(approved.activity.result.createUserTagResult?.userTagId).toBeTruthy();

      const late = await refusal(carol.client.approveActivity({ fingerprint: submitted.activity.fingerprint }));
      expect(late.code).toBe(9);
      expect(late.message).toContain("ACTIVITY_STATUS_COMPLETED");
      expect((await server.client().listUserTags({})).userTags.map((t) => t.tagName)).toEqual(["quorum tag"]);

      const evaluations = await server.client().getPolicyEvaluations({ activityId: submitted.activity.id });
      expect(evaluations.policyEvaluations.map((e) => e.voteId)).toEqual(approved.activity.votes.map((v) => v.id));
    });

    it("is rejected by one quorum member, after which it cannot be approved", async () => {
      const submitted = await bob.client.createUserTag({ userTagName: "rejected tag", userIds: [] });
      expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const rejected = await carol.client.rejectActivity({ fingerprint: submitted.activity.fingerprint });
      expect(rejected.activity.status).toBe("ACTIVITY_STATUS_REJECTED");
      expect(rejected.activity.votes.map((v) => v.selection)).toEqual(["VOTE_SELECTION_APPROVED", "VOTE_SELECTION_REJECTED"]);
      expect((await refusal(server.client().approveActivity({ fingerprint: submitted.activity.fingerprint }))).code).toBe(9);
      expect((await server.client().listUserTags({})).userTags.map((t) => t.tagName)).not.toContain("rejected tag");
    });

    it("refuses a second vote by the same user, and an unknown fingerprint", async () => {
      const submitted = await bob.client.createUserTag({ userTagName: "twice", userIds: [] });
      const again = await refusal(bob.client.approveActivity({ fingerprint: submitted.activity.fingerprint }));
      expect(again.code).toBe(9);
      expect(again.message).toContain("already voted");
      const unknown = await refusal(bob.client.approveActivity({ fingerprint: "sha256:" + "0".repeat(64) }));
      expect(unknown.code).toBe(5);
      expect(unknown.message).toContain("No activity found with fingerprint");
    });

    it("counts the identical body from another user as their approval instead of a second activity", async () => {
      const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", server.root.organizationId, { userTagName: "resubmitted", userIds: [] });
      const first = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
        "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
      });
      expect((first.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const repeat = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
        "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
      });
      expect((repeat.json.activity as { votes: unknown[] }).votes).toHaveLength(1);
      const second = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
        "X-Stamp": p256Stamp(body, carol.key.publicKey, carol.key.privateKey),
      });
      const activity = second.json.activity as { id: string; status: string; votes: unknown[] };
      expect(activity.id).toBe((first.json.activity as { id: string }).id);
      expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect(activity.votes).toHaveLength(2);
    });
  });

  describe("policies for non-root users", () => {
    let server: TestServer;
    let alice: Awaited<ReturnType<typeof addUser>>;
    let dave: Awaited<ReturnType<typeof addUser>>;
    let ops: string;
    beforeAll(async () => {
      server = await startTestServer();
      ops = (await server.client().createUserTag({ userTagName: "ops", userIds: [] })).userTagId;
      alice = await addUser(server, "alice", [ops]);
      dave = await addUser(server, "dave", [ops]);
    });
    afterAll(async () => server.close());

    it("refuses expressions that do not parse or type-check with 400, pointing at the position", async () => {
      const bad = await refusal(
        server.client().createPolicy({ policyName: "bad", effect: "EFFECT_ALLOW", condition: "activity.type == ", notes: "" }),
      );
      expect(bad.code).toBe(3);
      expect(bad.message).toContain("condition: invalid policy condition: at position 17: expected a value");
      const wrongField = await refusal(
        server.client().createPolicy({ policyName: "bad", effect: "EFFECT_ALLOW", condition: "approvers.count() > 1", notes: "" }),
      );
      expect(wrongField.message).toContain("unknown name 'approvers'");
      expect((await server.client().getPolicies({})).policies).toEqual([]);
    });

    it("denies implicitly, then allows through a policy, and an explicit deny beats the allow", async () => {
      expect((await refusal(alice.client.createUserTag({ userTagName: "a1", userIds: [] }))).code).toBe(7);
      const { policyId } = await server.client().createPolicy({
        policyName: "alice may tag",
        effect: "EFFECT_ALLOW",
        consensus: `approvers.any(user, user.id == '${alice.userId}')`,
        condition: "activity.kind == 'CREATE_USER_TAG'",
        notes: "",
      });
      expect((await alice.client.createUserTag({ userTagName: "a2", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const deny = await server.client().createPolicy({
        policyName: "no tags named x",
        effect: "EFFECT_DENY",
        condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
        notes: "",
      });
      const denied = await refusal(alice.client.createUserTag({ userTagName: "a3", userIds: [] }));
      expect(denied.code).toBe(7);
      expect(denied.message).toContain(deny.policyId);
      expect(denied.message).toContain("explicit deny");
      await server.client().deletePolicies({ policyIds: [policyId, deny.policyId] });
    });

    it("waits for a second tagged approver when the consensus asks for two", async () => {
      await server.client().createPolicy({
        policyName: "two ops create wallets",
        effect: "EFFECT_ALLOW",
        consensus: `approvers.filter(user, user.tags.contains('${ops}')).count() >= 2`,
        condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
        notes: "",
      });
      const submitted = await alice.client.createWallet({ walletName: "ops wallet", accounts: [] });
      expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const approved = await dave.client.approveActivity({ fingerprint: submitted.activity.fingerprint });
      expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect(approved.activity.result.createWalletResult?.walletId).toBeTruthy();
      const evaluations = (await server.client().getPolicyEvaluations({ activityId: submitted.activity.id })).policyEvaluations;
      expect(evaluations.map((e) => e.policyEvaluations[0]?.outcome)).toEqual(["OUTCOME_REQUIRES_CONSENSUS", "OUTCOME_ALLOW"]);
    });

    it("allows signing only to allow-listed addresses (eth.tx.to)", async () => {
      const { addresses } = await server.client().createWallet({
        walletName: "hot",
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        ],
      });
      const allowed = privateKeyToAccount(`0x${"11".repeat(32)}`).address;
      await server.client().createPolicy({
        policyName: "alice sends to the treasury",
        effect: "EFFECT_ALLOW",
        consensus: `approvers.any(user, user.id == '${alice.userId}')`,
        condition: `activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '${allowed}'`,
        notes: "",
      });
      const tx = (to: `0x${string}`) =>
        serializeTransaction({
          type: "eip1559",
          chainId: 1,
          nonce: 0,
          to,
          value: 1n,
          gas: 21000n,
          maxFeePerGas: 2n,
          maxPriorityFeePerGas: 1n,
        }).slice(2);
      const ok = await alice.client.signTransaction({
        signWith: addresses[0]!,
        type: "TRANSACTION_TYPE_ETHEREUM",
        unsignedTransaction: tx(allowed),
      });
      expect(ok.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const other = await refusal(
        alice.client.signTransaction({
          signWith: addresses[0]!,
          type: "TRANSACTION_TYPE_ETHEREUM",
          unsignedTransaction: tx("0x2222222222222222222222222222222222222222"),
        }),
      );
      expect(other.code).toBe(7);
    });
  });

  describe("approvals lapse 24 hours after the first", () => {
    let server: TestServer;
    let now = Date.now();
    beforeAll(async () => {
      server = await startTestServer({ clock: () => new Date(now) });
    });
    afterAll(async () => server.close());

    it("after which the earlier approvals no longer count", async () => {
      const client = (key: { publicKey: string; privateKey: string }) =>
        new TurnkeyClient({ baseUrl: server.url }, new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }));
      const orgId = server.root.organizationId;
      const timestampMs = () => String(now);
      const rootKey = { publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! };
      const root = client(rootKey);
      const keys: KeyPair[] = [generateP256KeyPair(), generateP256KeyPair()];
      const created = await root.createUsers({
        type: "ACTIVITY_TYPE_CREATE_USERS_V4",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: {
          users: keys.map((k, i) => ({
            userName: `quorum ${i}`,
            apiKeys: [{ apiKeyName: "k", publicKey: k.publicKey, curveType: "API_KEY_CURVE_P256" as const }],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          })),
        },
      });
      const [xId, yId] = created.activity.result.createUsersResult!.userIds;
      await root.updateRootQuorum({
        type: "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { threshold: 3, userIds: [server.root.userId, xId!, yId!] },
      });
      const x = client({ publicKey: keys[0]!.publicKey, privateKey: keys[0]!.privateKey });
      const y = client({ publicKey: keys[1]!.publicKey, privateKey: keys[1]!.privateKey });

      const submitted = await root.createUserTag({
        type: "ACTIVITY_TYPE_CREATE_USER_TAG",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { userTagName: "slow", userIds: [] },
      });
      const fingerprint = submitted.activity.fingerprint;
      now += 2 * 3_600_000;
      const one = await x.approveActivity({
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { fingerprint },
      });
      expect(one.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      now += 23 * 3_600_000;
      const late = await y.approveActivity({
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { fingerprint },
      });
      expect(late.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const again = await root.approveActivity({
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { fingerprint },
      });
      expect(again.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const done = await x.approveActivity({
        type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
        timestampMs: timestampMs(),
        organizationId: orgId,
        parameters: { fingerprint },
      });
      expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    });
  });
});

describe("app proofs", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("come with an activity when generateAppProofs is set, and verifyAppProofSignature accepts them", async () => {
    const created = await server.client().createWallet({
      walletName: "proven",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
      generateAppProofs: true,
    } as never);
    const proofs = created.activity.appProofs!;
    expect(proofs.map((p) => JSON.parse(p.proofPayload).type)).toEqual([
      "APP_PROOF_TYPE_POLICY_OUTCOME",
      "APP_PROOF_TYPE_ADDRESS_DERIVATION",
    ]);
    for (const proof of proofs) expect(() => verifyAppProofSignature(proof as never)).not.toThrow();
    const derivation = JSON.parse(proofs[1]!.proofPayload).addressDerivationProof;
    expect(derivation).toEqual({
      organizationId: server.root.organizationId,
      walletId: created.walletId,
      derivationPath: "m/44'/60'/0'/0/0",
      address: created.addresses[0],
    });
    expect(proofs[0]!.publicKey.slice(130)).toBe(server.services.signer.publicKeyHex);
    expect((await server.client().getAppProofs({ activityId: created.activity.id })).appProofs).toEqual(proofs);

    const tampered = {
      ...proofs[1]!,
      proofPayload: proofs[1]!.proofPayload.replace(created.addresses[0]!, "0x0000000000000000000000000000000000000000"),
    };
    expect(() => verifyAppProofSignature(tampered as never)).toThrow();
    const plain = await server.client().createWallet({ walletName: "unproven", accounts: [] });
    expect(plain.activity.appProofs).toBeUndefined();
  });
});
