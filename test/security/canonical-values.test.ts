import { generateP256KeyPair } from "@turnkey/crypto";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const rootUser = (name: string, publicKey: string) => ({ userName: name, apiKeys: [{ apiKeyName: name, publicKey, curveType: "API_KEY_CURVE_P256" as const }], authenticators: [], oauthProviders: [] });
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;
const RECIPIENT = "0x3333333333333333333333333333333333333333";

/** Another spelling of the same hex: upper case, and a 0x prefix. */
const upper = (hex: string) => hex.toUpperCase();
const prefixed = (hex: string) => `0x${hex}`;

describe("policies compare every value with several spellings canonically, on both sides", () => {
  let server: TestServer;
  let root: ReturnType<TestServer["client"]>;
  let member: ReturnType<TestServer["client"]>;
  let memberKey: ReturnType<typeof generateP256KeyPair>;
  let walletId: string;
  let ethAddress: string;

  beforeAll(async () => {
    server = await startTestServer();
    const rootKey = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({ subOrganizationName: "spellings", rootQuorumThreshold: 1, rootUsers: [rootUser("owner", rootKey.publicKey)] });
    root = server.client({ apiPublicKey: rootKey.publicKey, apiPrivateKey: rootKey.privateKey }, subOrganizationId);
    memberKey = generateP256KeyPair();
    await root.createUsers({ users: [{ ...rootUser("member", memberKey.publicKey), userTags: [] }] });
    member = server.client({ apiPublicKey: memberKey.publicKey, apiPrivateKey: memberKey.privateKey }, subOrganizationId);
    const wallet = await root.createWallet({ walletName: "treasury", accounts: [ETH] });
    walletId = wallet.walletId;
    ethAddress = wallet.addresses[0]!;
  });
  afterAll(async () => server.close());

  /** Runs `body` with the policies in place, then deletes them. */
  async function withPolicies(policies: { policyName: string; effect: "EFFECT_ALLOW" | "EFFECT_DENY"; condition?: string; consensus?: string }[], body: () => Promise<void>): Promise<void> {
    const { policyIds } = await root.createPolicies({ policies: policies.map((p) => ({ notes: "", ...p })) });
    try {
      await body();
    } finally {
      await root.deletePolicies({ policyIds });
    }
  }

  const exportTo = (targetPublicKey: string) => member.exportWallet({ walletId, targetPublicKey });
  const memberMayExport = { policyName: "member may export", effect: "EFFECT_ALLOW" as const, condition: "activity.resource == 'WALLET' && activity.action == 'EXPORT'" };

  it("an explicit deny on a lower-case target_public_key also stops the upper-case spelling of that key", async () => {
    const attackerKey = generateP256KeyPair().publicKeyUncompressed.toLowerCase();
    await withPolicies(
      [memberMayExport, { policyName: "never export to the attacker", effect: "EFFECT_DENY", condition: `activity.params.target_public_key == '${attackerKey}'` }],
      async () => {
        expect((await refusal(exportTo(attackerKey))).code).toBe(7);
        const spelled = await refusal(exportTo(upper(attackerKey)));
        expect(spelled.code).toBe(7);
        expect(spelled.message).toContain("explicit deny");
        // The deny is not a blanket one: another key exports.
        expect((await exportTo(generateP256KeyPair().publicKeyUncompressed)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      },
    );
  });

  it("a deny whose literal is written in another spelling (upper case, 0x, compressed) still denies", async () => {
    const attackerKey = generateP256KeyPair();
    const lower = attackerKey.publicKeyUncompressed.toLowerCase();
    for (const literal of [upper(lower), prefixed(lower), prefixed(upper(lower)), attackerKey.publicKey, upper(attackerKey.publicKey)]) {
      await withPolicies([memberMayExport, { policyName: "deny by another spelling", effect: "EFFECT_DENY", condition: `activity.params.target_public_key in ['${literal}']` }], async () => {
        expect((await refusal(exportTo(lower))).code, literal).toBe(7);
      });
    }
  });

  it("an allow policy on one spelling of the target key allows the others", async () => {
    const clientKey = generateP256KeyPair();
    const lower = clientKey.publicKeyUncompressed.toLowerCase();
    await withPolicies([{ policyName: "export only to the client", effect: "EFFECT_ALLOW", condition: `activity.params.target_public_key == '${prefixed(upper(lower))}'` }], async () => {
      expect((await exportTo(lower)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect((await exportTo(upper(lower))).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      expect((await refusal(exportTo(generateP256KeyPair().publicKeyUncompressed))).code).toBe(7);
    });
  });

  it("credentials' public keys compare compressed or uncompressed, in any case, with or without 0x", async () => {
    const tag = (name: string) => member.createUserTag({ userTagName: name, userIds: [] });
    const spellings = [memberKey.publicKeyUncompressed, upper(memberKey.publicKeyUncompressed), prefixed(memberKey.publicKey), upper(memberKey.publicKey)];
    let n = 0;
    for (const spelling of spellings) {
      await withPolicies(
        [
          { policyName: "member may tag", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER'", consensus: "approvers.count() >= 1" },
          { policyName: "not with this key", effect: "EFFECT_DENY", condition: "activity.resource == 'USER'", consensus: `credentials.any(c, c.public_key == '${spelling}')` },
        ],
        async () => {
          expect((await refusal(tag(`denied ${n++}`))).code, spelling).toBe(7);
        },
      );
      await withPolicies([{ policyName: "only this key", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER'", consensus: `credentials.all(c, [c.public_key].contains('${spelling}'))` }], async () => {
        expect((await tag(`allowed ${n++}`)).activity.status, spelling).toBe("ACTIVITY_STATUS_COMPLETED");
      });
    }
  });

  it("eth.tx hex (calldata) and addresses compare in any case", async () => {
    const transfer = serializeTransaction({ type: "eip1559", chainId: 1, nonce: 0, to: RECIPIENT, gas: 60000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, 5n] }) }).slice(2);
    const sign = () => member.signTransaction({ signWith: ethAddress, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: transfer });
    const memberMaySign = { policyName: "member may sign", effect: "EFFECT_ALLOW" as const, condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'" };
    for (const condition of ["eth.tx.data[0..10] == '0xA9059CBB'", "eth.tx.data[0..10] in ['A9059CBB']", "eth.tx.data.contains('A9059CBB')", `wallet_account.address == '${ethAddress.toUpperCase().replace("0X", "0x")}'`, `eth.tx.to == '${RECIPIENT.toUpperCase().replace("0X", "0x")}'`]) {
      await withPolicies([memberMaySign, { policyName: "no token transfers", effect: "EFFECT_DENY", condition }], async () => {
        expect((await refusal(sign())).code, condition).toBe(7);
      });
    }
    await withPolicies([memberMaySign], async () => {
      expect((await sign()).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    });
  });
});
