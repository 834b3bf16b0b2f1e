import { generateP256KeyPair } from "@turnkey/crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyExportDirectory } from "../../src/audit/export-directory.js";
import { verifyConsistency } from "../../src/crypto/merkle.js";
import { parseVerifierKey, openCheckpoint } from "../../src/crypto/signed-note.js";
import { verifyTlogProof } from "../../src/crypto/tlog-proof.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey, userWithApiKey } from "../helpers/users.js";
import { AUDIT_TEST_ENV, exportTo, settled, strongroomQuery } from "./helpers.js";

type Entry = Record<string, unknown> & { index: number; type: string; organizationId: string | null };

/**
 * The audit log through the public interface: what the pipelines record (activities and their outcomes, votes,
 * refusals with their policy evaluations, failed stamps), what an organization may read of it, proofs that verify
 * offline against the served key, and an export that verifies.
 */
describe("audit log", () => {
  let server: TestServer;
  let entries: Entry[];
  let bob: Awaited<ReturnType<typeof createUserWithApiKey>>;

  beforeAll(async () => {
    server = await startTestServer({ env: AUDIT_TEST_ENV });
    const root = server.client();
    await root.createUserTag({ userTagName: "audited", userIds: [] });
    const duplicate = await root.createApiKeys({
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "again", publicKey: server.root.apiPublicKey, curveType: "API_KEY_CURVE_P256" }],
    });
    expect(duplicate.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    bob = await createUserWithApiKey(root, "bob");
    // bob may create tags only with the root user's approval: his submission waits, the root user approves.
    await root.createPolicy({
      policyName: "bob's tags need the root user",
      effect: "EFFECT_ALLOW",
      condition: `activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'`,
      consensus: `approvers.any(user, user.id == '${server.root.userId}')`,
      notes: "",
    });
    const asBob = server.client(bob.credentials);
    const waiting = await asBob.createUserTag({ userTagName: "bob's", userIds: [] });
    expect(waiting.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await root.approveActivity({ fingerprint: waiting.activity.fingerprint });
    // bob may not create users: refused by the policies (implicit deny), nothing written but the log's entry.
    const carol = generateP256KeyPair();
    await expect(asBob.createUsers({ users: [{ ...userWithApiKey("carol", carol.publicKey), userTags: [] }] })).rejects.toThrow(
      /implicit deny/,
    );
    // A stamp that does not verify, naming the organization.
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", server.root.organizationId, { userTagName: "x", userIds: [] });
    const other = generateP256KeyPair();
    const forged = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
      "X-Stamp": p256Stamp(body, server.root.apiPublicKey, other.privateKey),
    });
    expect(forged.status).toBe(401);
    await settled(server.services.db);
    const listed = await strongroomQuery(server, "list_audit_entries", { limit: 1000 });
    expect(listed.status).toBe(200);
    entries = (listed.json.entries as Array<{ index: number; entry: string }>).map((e) => JSON.parse(e.entry) as Entry);
  });
  afterAll(() => server?.close());

  it("records every activity and its outcome, the vote, the denial and the refused stamp, with who and what", () => {
    const ofType = (type: string) => entries.filter((e) => e.type === type);
    expect(ofType("organization.initialized")).toHaveLength(1);
    const activities = ofType("activity");
    expect(activities.map((e) => [e.activityType, e.status])).toEqual([
      ["ACTIVITY_TYPE_CREATE_USER_TAG", "ACTIVITY_STATUS_COMPLETED"],
      ["ACTIVITY_TYPE_CREATE_API_KEYS_V2", "ACTIVITY_STATUS_FAILED"],
      ["ACTIVITY_TYPE_CREATE_USERS_V4", "ACTIVITY_STATUS_COMPLETED"],
      ["ACTIVITY_TYPE_CREATE_POLICY_V3", "ACTIVITY_STATUS_COMPLETED"],
      ["ACTIVITY_TYPE_CREATE_USER_TAG", "ACTIVITY_STATUS_CONSENSUS_NEEDED"],
    ]);
    expect(activities[0]).toMatchObject({
      requester: {
        userId: server.root.userId,
        credentialType: "CREDENTIAL_TYPE_API_KEY_P256",
        authenticationType: "AUTHENTICATION_TYPE_API_KEY",
      },
      fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      clientIp: "127.0.0.1",
    });
    expect(activities[1]!.failure).toMatchObject({ messageHmac: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/) });
    expect(activities[4]).toMatchObject({ requester: { userId: bob.userId }, evaluations: [{ outcome: expect.any(String) }] });
    expect(ofType("vote")).toEqual([
      expect.objectContaining({
        activityId: activities[4]!.activityId,
        selection: "VOTE_SELECTION_APPROVED",
        status: "ACTIVITY_STATUS_COMPLETED",
        voter: expect.objectContaining({ userId: server.root.userId }),
      }),
    ]);
    const refused = ofType("activity.refused");
    expect(refused.map((e) => [e.operation, e.httpStatus, (e.failure as { code: string }).code])).toEqual([
      ["create_users", 403, "REQUEST_NOT_AUTHORIZED"],
      ["create_user_tag", 401, "SIGNATURE_INVALID"],
    ]);
    expect(refused[0]).toMatchObject({ requester: { userId: bob.userId }, evaluations: expect.any(Array) });
    expect(refused[1]!.requester).toBeUndefined();
  });

  it("writes no key material, code or secret into an entry, and free text only as an HMAC", () => {
    const text = JSON.stringify(entries);
    expect(text).not.toContain(server.root.apiPrivateKey!);
    expect(text).not.toContain(bob.key.privateKey);
    expect(text).not.toContain("bob's tags need the root user");
    expect(text).not.toMatch(/"message"/);
  });

  it("gives every entry its index and the root before it, in the order written, readable by its organization only", async () => {
    expect(entries.map((e) => e.organizationId)).toEqual(entries.map(() => server.root.organizationId));
    expect(entries.every((e, i) => i === 0 || e.index > entries[i - 1]!.index)).toBe(true);
    const stranger = await initRootOrganization(server.services, { organizationName: "Stranger" });
    const strangerKey = { publicKey: stranger.apiPublicKey, privateKey: stranger.apiPrivateKey! };
    await settled(server.services.db);
    const theirs = await post(
      `${server.url}/strongroom/v1/query/list_audit_entries`,
      JSON.stringify({ organizationId: stranger.organizationId }),
      {
        "X-Stamp": p256Stamp(JSON.stringify({ organizationId: stranger.organizationId }), strangerKey.publicKey, strangerKey.privateKey),
      },
    );
    const indexes = (theirs.json.entries as Array<{ index: number; entry: string }>).map((e) => JSON.parse(e.entry) as Entry);
    expect(indexes.map((e) => [e.type, e.organizationId])).toEqual([["organization.initialized", stranger.organizationId]]);
    // The stranger's credential cannot name our organization, and asks in vain for a proof of our entries.
    const ours = await strongroomQuery(server, "list_audit_entries", {}, { key: strangerKey });
    expect(ours.status).toBe(401);
    const proofBody = JSON.stringify({ organizationId: stranger.organizationId, index: entries[0]!.index });
    const proof = await post(`${server.url}/strongroom/v1/query/get_audit_inclusion_proof`, proofBody, {
      "X-Stamp": p256Stamp(proofBody, strangerKey.publicKey, strangerKey.privateKey),
    });
    expect(proof.status).toBe(404);
    expect(proof.json.message).toBe(`organization ${stranger.organizationId} has no audit entry at index ${entries[0]!.index}`);
  });

  it("serves the entries as NDJSON, each line an entry's exact bytes", async () => {
    const response = await fetch(`${server.url}/strongroom/v1/query/list_audit_entries`, {
      method: "POST",
      body: JSON.stringify({ organizationId: server.root.organizationId, limit: 3 }),
      headers: {
        "content-type": "application/json",
        accept: "application/x-ndjson",
        "X-Stamp": p256Stamp(
          JSON.stringify({ organizationId: server.root.organizationId, limit: 3 }),
          server.root.apiPublicKey,
          server.root.apiPrivateKey!,
        ),
      },
    });
    expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const lines = (await response.text()).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => (JSON.parse(line) as Entry).index)).toEqual(entries.slice(0, 3).map((e) => e.index));
  });

  it("proves an entry's inclusion (C2SP tlog-proof) and the log's consistency, verified against the served key", async () => {
    const key = await strongroomQuery(server, "get_audit_log_key", {});
    const verifier = parseVerifierKey(key.json.verifierKey as string);
    const first = await strongroomQuery(server, "get_audit_checkpoint", {});
    const early = openCheckpoint(first.json.checkpoint as string, verifier);
    await server.client().createUserTag({ userTagName: "later", userIds: [] });
    const size = await settled(server.services.db);
    for (const entry of [entries[0]!, entries[entries.length - 1]!]) {
      const answer = await strongroomQuery(server, "get_audit_inclusion_proof", { index: entry.index });
      expect(answer.status).toBe(200);
      const proven = verifyTlogProof(answer.json.proof as string, new TextEncoder().encode(answer.json.entry as string), verifier);
      expect(proven).toMatchObject({ index: entry.index, size });
    }
    const consistency = await strongroomQuery(server, "get_audit_consistency_proof", { firstTreeSize: early.size });
    const latest = openCheckpoint(consistency.json.checkpoint as string, verifier);
    const proof = (consistency.json.proof as string[]).map((h) => new Uint8Array(Buffer.from(h, "base64")));
    expect(latest.size).toBe(size);
    expect(verifyConsistency(early.size, latest.size, early.root, latest.root, proof)).toBe(true);
    const beyond = await strongroomQuery(server, "get_audit_consistency_proof", { firstTreeSize: size + 1 });
    expect(beyond.status).toBe(400);
  });

  it("exports a log that verifies offline with the key kept elsewhere", async () => {
    const dir = await exportTo(server.services);
    const verified = await verifyExportDirectory(dir, { key: server.services.audit.keys.verifierKey });
    expect(verified.size).toBe(await settled(server.services.db));
    expect(readFileSync(join(dir, "public-key"), "utf8")).toBe(`${server.services.audit.keys.verifierKey}\n`);
    expect(readFileSync(join(dir, "entries.ndjson"), "utf8").split("\n")).toHaveLength(verified.size + 1);
  });
});
