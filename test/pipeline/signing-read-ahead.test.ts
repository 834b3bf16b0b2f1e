import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { watchStore } from "../helpers/watch-store.js";

const onPostgres = process.env.DATABASE_URL !== undefined;
/** Authentication's statement for a submission. */
const AUTHENTICATION = /AS stamp_activity_updates_subscribed/;
/** The read that finds the key signWith names (src/domains/signing/signing-keys.ts). */
const KEY_READ = /FROM private_keys WHERE organization_id = \$1 AND id = \$2/;
/** The activity's insert, in its transaction (src/domains/activities/insert-new-activity.ts). */
const ACTIVITY_INSERT = /INSERT INTO activities \(/;

/**
 * A signature's key is read with the authentication's statement (ActivityDefinition.readAhead): on PostgreSQL in the
 * same transaction and write, a round trip fewer per signature; its rows reach validate only once the stamp is verified.
 * The embedded store, where a statement costs no round trip, reads nothing ahead.
 */
describe(`the signing key read with the authentication (${onPostgres ? "PostgreSQL" : "embedded"})`, () => {
  let server: TestServer;
  let store: ReturnType<typeof watchStore>;
  let address: string;
  let privateKeyId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const { addresses } = await server.client().createWallet({
      walletName: "read ahead",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    address = addresses[0]!;
    const { privateKeys } = await server.client().createPrivateKeys({
      privateKeys: [{ privateKeyName: "read ahead", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] }],
    });
    privateKeyId = privateKeys[0]!.privateKeyId!;
    store = watchStore(server);
  });
  afterAll(async () => server?.close());

  const signature = (signWith: string) =>
    ({ signWith, payload: "0x" + "ab".repeat(32), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" }) as const;
  const sign = (signWith: string) => server.client().signRawPayload(signature(signWith));
  /** A sign_raw_payload body with the wallet account's address, for stamps the SDK would not make. */
  const signatureBody = () => activityBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", server.root.organizationId, signature(address));

  it.each([
    ["a wallet account address", () => address],
    ["a private key id", () => privateKeyId],
  ])("reads the key %s names once, with the authentication, and signs", async (_, signWith) => {
    store.statements = [];
    store.committedWith = [];
    const { activity, r, s } = await sign(signWith());
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(r).toMatch(/^[0-9a-f]{64}$/);
    expect(s).toMatch(/^[0-9a-f]{64}$/);
    const reads = store.statements.filter((sql) => KEY_READ.test(sql));
    expect(reads).toHaveLength(1);
    // After the authentication and before the activity's transaction; on the embedded store the background loops'
    // statements, on the same engine, may come between.
    const at = (pattern: RegExp) => store.statements.findIndex((sql) => pattern.test(sql));
    expect(at(KEY_READ)).toBeGreaterThan(at(AUTHENTICATION));
    expect(at(KEY_READ)).toBeLessThan(at(ACTIVITY_INSERT));
    // PostgreSQL: the key's read is the last statement of the authentication's transaction, and leaves with its COMMIT.
    // The embedded store reads nothing ahead: validate reads the key itself.
    expect(store.committedWith.some((sql) => KEY_READ.test(sql))).toBe(onPostgres);
  });

  it("answers a key the organization does not hold with a 400 naming signWith", async () => {
    const missing = "0x" + "12".repeat(20);
    const refused = await refusal(sign(missing));
    expect(refused.message).toContain(
      `signWith: "${missing}" is neither a private key id, a wallet account address nor a private key address`,
    );
  });

  it("reads nothing at all for a stamp that does not verify", async () => {
    store.statements = [];
    const body = signatureBody();
    const stampedOther = p256Stamp(body + " ", server.root.apiPublicKey, server.root.apiPrivateKey!);
    const answer = await post(`${server.url}/public/v1/submit/sign_raw_payload`, body, { "X-Stamp": stampedOther });
    expect(answer.status).toBe(401);
    expect(store.statements.filter((sql) => KEY_READ.test(sql) || AUTHENTICATION.test(sql))).toEqual([]);
  });

  it("reads the key for a stamp of a key nobody registered only on PostgreSQL, in authentication's write", async () => {
    store.statements = [];
    const unregistered = generateP256KeyPair();
    const body = signatureBody();
    const stamp = p256Stamp(body, unregistered.publicKey, unregistered.privateKey);
    const answer = await post(`${server.url}/public/v1/submit/sign_raw_payload`, body, { "X-Stamp": stamp });
    expect(answer.status).toBe(401);
    expect(store.statements.filter((sql) => AUTHENTICATION.test(sql))).toHaveLength(1);
    expect(store.statements.filter((sql) => KEY_READ.test(sql))).toHaveLength(onPostgres ? 1 : 0);
  });
});
