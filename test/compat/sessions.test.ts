import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, generateP256KeyPair, verifySessionJwtSignature } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("sessions through @turnkey/sdk-server", () => {
  let server: TestServer;
  let now = Date.now();
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
  });
  afterAll(async () => server.close());

  it("a read-write session key is decrypted with decryptCredentialBundle, acts for the user, and is refused once expired", async () => {
    const target = generateP256KeyPair();
    const created = await server
      .client()
      .createReadWriteSession({ targetPublicKey: target.publicKeyUncompressed, expirationSeconds: "600" });
    expect(created).toMatchObject({ organizationId: server.root.organizationId, userId: server.root.userId, username: "Root user" });
    const privateKey = decryptCredentialBundle(created.credentialBundle, target.privateKey);
    const publicKey = Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex");
    const session = server.client({ apiPublicKey: publicKey, apiPrivateKey: privateKey });
    expect((await session.getWhoami({})).userId).toBe(server.root.userId);
    expect((await session.createUserTag({ userTagName: "from a session", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const key = (await server.client().getApiKey({ apiKeyId: created.apiKeyId })).apiKey;
    expect(key).toMatchObject({ credential: { publicKey, type: "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256" }, expirationSeconds: "600" });
    expect(key.apiKeyName).toMatch(/^Read Write Session - /);

    const second = await server
      .client()
      .createReadWriteSession({ targetPublicKey: target.publicKeyUncompressed, invalidateExisting: true });
    expect((await refusal(session.getWhoami({}))).code).toBe(16);
    const fresh = decryptCredentialBundle(second.credentialBundle, target.privateKey);
    const freshClient = server.client({
      apiPublicKey: Buffer.from(p256.getPublicKey(Buffer.from(fresh, "hex"), true)).toString("hex"),
      apiPrivateKey: fresh,
    });
    expect((await freshClient.getWhoami({})).userId).toBe(server.root.userId);
    now += 16 * 60_000; // the default lifetime is 15 minutes
    const expired = await refusal(freshClient.getWhoami({}));
    expect(expired.code).toBe(16);
    expect(expired.message).toContain("expired");
    now = Date.now();
  });

  it("stamp_login registers the client's key and returns a session JWT verifySessionJwtSignature accepts", async () => {
    const key = generateP256KeyPair();
    const { session } = await server.client().stampLogin({ publicKey: key.publicKey });
    await expect(verifySessionJwtSignature(session, server.services.signer.publicKeyHex)).resolves.toBe(true);
    const [, payload] = session.split(".");
    expect(payload).not.toMatch(/[-_]/);
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({
      session_type: "SESSION_TYPE_READ_WRITE",
      user_id: server.root.userId,
      organization_id: server.root.organizationId,
      public_key: key.publicKey,
    });
    expect(Number(claims.exp)).toBeGreaterThan(Math.floor(Date.now() / 1000) + 800);
    const loggedIn = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    expect((await loggedIn.getWhoami({})).userId).toBe(server.root.userId);
  });

  it("a read-only session token reads through X-Session, never submits, and lapses after an hour", async () => {
    const created = await server.client().createReadOnlySession({});
    expect(Number(created.sessionExpiry) - Math.floor(now / 1000)).toBe(3600);
    const whoami = JSON.stringify({ organizationId: server.root.organizationId });
    const read = await post(`${server.url}/public/v1/query/whoami`, whoami, { "X-Session": created.session });
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    expect(read.json.userId).toBe(server.root.userId);
    const submit = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: { userTagName: "x", userIds: [] },
    });
    const write = await post(`${server.url}/public/v1/submit/create_user_tag`, submit, { "X-Session": created.session });
    expect(write.status).toBe(403);
    expect(String(write.json.message)).toContain("read-only session");
    const forged = created.session.slice(0, -4) + (created.session.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect((await post(`${server.url}/public/v1/query/whoami`, whoami, { "X-Session": forged })).status).toBe(401);
    now += 3601_000;
    const late = await post(`${server.url}/public/v1/query/whoami`, whoami, { "X-Session": created.session });
    expect(late.status).toBe(401);
    expect(String(late.json.message)).toContain("expired");
    now = Date.now();
  });
});
