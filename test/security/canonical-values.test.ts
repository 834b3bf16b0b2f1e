import { generateP256KeyPair } from "@turnkey/crypto";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonical, compilePolicyExpression, evaluateExpression, type PolicyField, type Value } from "../../src/policy/language/index.js";
import { KEYWORDS, type Type } from "../../src/policy/language/types.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";
import { userWithApiKey } from "../helpers/users.js";

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
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "spellings",
      rootQuorumThreshold: 1,
      rootUsers: [userWithApiKey("owner", rootKey.publicKey)],
    });
    root = server.client({ apiPublicKey: rootKey.publicKey, apiPrivateKey: rootKey.privateKey }, subOrganizationId);
    memberKey = generateP256KeyPair();
    await root.createUsers({ users: [{ ...userWithApiKey("member", memberKey.publicKey), userTags: [] }] });
    member = server.client({ apiPublicKey: memberKey.publicKey, apiPrivateKey: memberKey.privateKey }, subOrganizationId);
    const wallet = await root.createWallet({ walletName: "treasury", accounts: [ETHEREUM_ACCOUNT] });
    walletId = wallet.walletId;
    ethAddress = wallet.addresses[0]!;
  });
  afterAll(async () => server.close());

  /** Runs `body` with the policies in place, then deletes them. */
  async function withPolicies(
    policies: { policyName: string; effect: "EFFECT_ALLOW" | "EFFECT_DENY"; condition?: string; consensus?: string }[],
    body: () => Promise<void>,
  ): Promise<void> {
    const { policyIds } = await root.createPolicies({ policies: policies.map((p) => ({ notes: "", ...p })) });
    try {
      await body();
    } finally {
      await root.deletePolicies({ policyIds });
    }
  }

  const exportTo = (targetPublicKey: string) => member.exportWallet({ walletId, targetPublicKey });
  const memberMayExport = {
    policyName: "member may export",
    effect: "EFFECT_ALLOW" as const,
    condition: "activity.resource == 'WALLET' && activity.action == 'EXPORT'",
  };

  it("an explicit deny on a lower-case target_public_key also stops the upper-case spelling of that key", async () => {
    const attackerKey = generateP256KeyPair().publicKeyUncompressed.toLowerCase();
    await withPolicies(
      [
        memberMayExport,
        {
          policyName: "never export to the attacker",
          effect: "EFFECT_DENY",
          condition: `activity.params.target_public_key == '${attackerKey}'`,
        },
      ],
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
      await withPolicies(
        [
          memberMayExport,
          {
            policyName: "deny by another spelling",
            effect: "EFFECT_DENY",
            condition: `activity.params.target_public_key in ['${literal}']`,
          },
        ],
        async () => {
          expect((await refusal(exportTo(lower))).code, literal).toBe(7);
        },
      );
    }
  });

  it("an allow policy on one spelling of the target key allows the others", async () => {
    const clientKey = generateP256KeyPair();
    const lower = clientKey.publicKeyUncompressed.toLowerCase();
    await withPolicies(
      [
        {
          policyName: "export only to the client",
          effect: "EFFECT_ALLOW",
          condition: `activity.params.target_public_key == '${prefixed(upper(lower))}'`,
        },
      ],
      async () => {
        expect((await exportTo(lower)).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
        expect((await exportTo(upper(lower))).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
        expect((await refusal(exportTo(generateP256KeyPair().publicKeyUncompressed))).code).toBe(7);
      },
    );
  });

  it("credentials' public keys compare compressed or uncompressed, in any case, with or without 0x", async () => {
    const tag = (name: string) => member.createUserTag({ userTagName: name, userIds: [] });
    const spellings = [
      memberKey.publicKeyUncompressed,
      upper(memberKey.publicKeyUncompressed),
      prefixed(memberKey.publicKey),
      upper(memberKey.publicKey),
    ];
    let n = 0;
    for (const spelling of spellings) {
      await withPolicies(
        [
          {
            policyName: "member may tag",
            effect: "EFFECT_ALLOW",
            condition: "activity.resource == 'USER'",
            consensus: "approvers.count() >= 1",
          },
          {
            policyName: "not with this key",
            effect: "EFFECT_DENY",
            condition: "activity.resource == 'USER'",
            consensus: `credentials.any(c, c.public_key == '${spelling}')`,
          },
        ],
        async () => {
          expect((await refusal(tag(`denied ${n++}`))).code, spelling).toBe(7);
        },
      );
      await withPolicies(
        [
          {
            policyName: "only this key",
            effect: "EFFECT_ALLOW",
            condition: "activity.resource == 'USER'",
            consensus: `credentials.all(c, [c.public_key].contains('${spelling}'))`,
          },
        ],
        async () => {
          expect((await tag(`allowed ${n++}`)).activity.status, spelling).toBe("ACTIVITY_STATUS_COMPLETED");
        },
      );
    }
  });

  it("eth.tx hex (calldata) and addresses compare in any case", async () => {
    const transfer = serializeTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      to: RECIPIENT,
      gas: 60000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, 5n] }),
    }).slice(2);
    const sign = () => member.signTransaction({ signWith: ethAddress, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: transfer });
    const memberMaySign = {
      policyName: "member may sign",
      effect: "EFFECT_ALLOW" as const,
      condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
    };
    for (const condition of [
      "eth.tx.data[0..10] == '0xA9059CBB'",
      "eth.tx.data[0..10] in ['A9059CBB']",
      "eth.tx.data.contains('A9059CBB')",
      `wallet_account.address == '${ethAddress.toUpperCase().replace("0X", "0x")}'`,
      `eth.tx.to == '${RECIPIENT.toUpperCase().replace("0X", "0x")}'`,
    ]) {
      await withPolicies([memberMaySign, { policyName: "no token transfers", effect: "EFFECT_DENY", condition }], async () => {
        expect((await refusal(sign())).code, condition).toBe(7);
      });
    }
    await withPolicies([memberMaySign], async () => {
      expect((await sign()).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    });
  });
});

describe("the keyword tables: every value with several spellings is compared canonically", () => {
  /** Every string-valued keyword path (lists and maps as []), with its spelling kind. */
  function stringPaths(type: Type, path: string, out: Map<string, string | undefined>): void {
    if (type.kind === "string") out.set(path, type.canon);
    else if (type.kind === "list") stringPaths(type.item, `${path}[]`, out);
    else if (type.kind === "map") stringPaths(type.value, `${path}[]`, out);
    else if (type.kind === "struct") for (const [name, field] of Object.entries(type.fields)) stringPaths(field, `${path}.${name}`, out);
  }
  const paths = new Map<string, string | undefined>();
  for (const [field, keywords] of Object.entries(KEYWORDS))
    for (const [name, type] of Object.entries(keywords)) stringPaths(type, `${field}:${name}`, paths);

  /** Strings with one spelling each: identifiers, names, enums, base58 hashes, a UTF-8 memo. */
  const ONE_SPELLING =
    /(\.id|ids\[\]|_id|\.type|\.kind|\.resource|\.action|\.label|\.alias|\.name|_name|\.tags\[\]|\.version|\.encoding|\.hash_function|\.address_type|\.permission_name|\.static_properties\[\]|\.primary_type|\.credential_id|recent_blockhash|tron\.tx\.data)$/;

  it("gives a spelling kind to every hex, key, address and email field", () => {
    const unkinded = [...paths].filter(([path, canon]) => canon === undefined && !ONE_SPELLING.test(path)).map(([path]) => path);
    expect(unkinded).toEqual([]);
    const kinds = (canon: string) => [...paths].filter(([, c]) => c === canon).map(([p]) => p);
    expect(kinds("public_key")).toEqual(
      expect.arrayContaining(["condition:activity.params.target_public_key", "consensus:credentials[].public_key"]),
    );
    expect(kinds("email")).toEqual(["consensus:approvers[].email"]);
    expect(kinds("address")).toEqual(
      expect.arrayContaining([
        "condition:wallet_account.address",
        "condition:eth.tx.to",
        "condition:eth.tx.from",
        "condition:bitcoin.tx.outputs[].address",
        "condition:tron.tx.contract[].to_address",
        "condition:solana.tx.transfers[].to",
      ]),
    );
    expect(kinds("hex")).toEqual(
      expect.arrayContaining([
        "condition:eth.tx.data",
        "condition:solana.tx.instructions[].instruction_data_hex",
        "condition:bitcoin.tx.outputs[].script_pubkey",
        "condition:bitcoin.tx.inputs[].tx_id",
        "condition:tron.tx.contract[].data",
      ]),
    );
  });

  const key = generateP256KeyPair();
  const uncompressed = key.publicKeyUncompressed.toLowerCase();
  const TRON_HEX = "41a614f803b6fd780986a42c78ec9c7f77e6ded13c";
  const TRON = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
  /** keyword value, and other spellings of it; each must compare equal, with ==, in and .contains, on either side. */
  const CASES: { field: PolicyField; path: string; keywords: Record<string, Value>; value: string; spellings: string[] }[] = [
    {
      field: "condition",
      path: "activity.params.target_public_key",
      keywords: { activity: { type: "", kind: "", resource: "", action: "", params: { target_public_key: uncompressed } } },
      value: uncompressed,
      spellings: [uncompressed.toUpperCase(), `0x${uncompressed}`, key.publicKey, key.publicKey.toUpperCase(), `0X${key.publicKey}`],
    },
    {
      field: "consensus",
      path: "credentials[0].public_key",
      keywords: { credentials: [{ id: "", user_id: "", type: "", credential_id: "", public_key: key.publicKey }], approvers: [] },
      value: key.publicKey,
      spellings: [uncompressed, uncompressed.toUpperCase(), `0x${key.publicKey.toUpperCase()}`],
    },
    {
      field: "consensus",
      path: "approvers[0].email",
      keywords: { approvers: [{ id: "", tags: [], email: "cfo@corp.example", alias: "" }], credentials: [] },
      value: "cfo@corp.example",
      spellings: ["CFO@Corp.Example"],
    },
    {
      field: "condition",
      path: "eth.tx.to",
      keywords: { eth: { tx: { to: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" } } },
      value: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      spellings: ["0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913"],
    },
    {
      field: "condition",
      path: "eth.tx.data",
      keywords: { eth: { tx: { data: "0xa9059cbb00" } } },
      value: "0xa9059cbb00",
      spellings: ["0xA9059CBB00", "a9059cbb00", "0XA9059cbb00"],
    },
    {
      field: "condition",
      path: "wallet_account.address",
      keywords: { wallet_account: { address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" } },
      value: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      spellings: ["BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ"],
    },
    {
      field: "condition",
      path: "tron.tx.contract[0].to_address",
      keywords: { tron: { tx: { contract: [{ to_address: TRON }] } } },
      value: TRON,
      spellings: [TRON_HEX, TRON_HEX.toUpperCase(), `0x${TRON_HEX}`],
    },
    {
      field: "condition",
      path: "bitcoin.tx.outputs[0].script_pubkey",
      keywords: { bitcoin: { tx: { outputs: [{ script_pubkey: "0014e8df018c7e326cc253faac7e46cdc51e68542c42" }] } } },
      value: "0014e8df018c7e326cc253faac7e46cdc51e68542c42",
      spellings: ["0x0014E8DF018C7E326CC253FAAC7E46CDC51E68542C42"],
    },
    {
      field: "condition",
      path: "solana.tx.instructions[0].instruction_data_hex",
      keywords: { solana: { tx: { instructions: [{ instruction_data_hex: "02000000e803" }] } } },
      value: "02000000e803",
      spellings: ["02000000E803", "0x02000000e803"],
    },
  ];

  const holds = (field: PolicyField, source: string, keywords: Record<string, Value>) =>
    evaluateExpression(compilePolicyExpression(source, field), { keywords, now: 0 });

  it("compares each such keyword with any spelling of its value, with ==, !=, in and .contains, the literal on either side", () => {
    for (const { field, path, keywords, spellings } of CASES) {
      for (const spelling of spellings) {
        for (const source of [
          `${path} == '${spelling}'`,
          `'${spelling}' == ${path}`,
          `!(${path} != '${spelling}')`,
          `${path} in ['other', '${spelling}']`,
          `[${path}].contains('${spelling}')`,
          `['${spelling}'].contains(${path})`,
        ]) {
          expect(holds(field, source, keywords), source).toBe(true);
        }
      }
      expect(holds(field, `${path} == 'somethingelse'`, keywords), path).toBe(false);
    }
  });

  it("keeps one-spelling values exact: base58 addresses, names and ids", () => {
    const keywords = {
      solana: { tx: { transfers: [{ from: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", to: "", amount: 1n }] } },
      wallet: { id: "w", label: "Treasury", imported: false, exported: false },
    };
    expect(holds("condition", "solana.tx.transfers[0].from == '7ecdhsygxxyscszyep35khn8vvw3svaulktzxwcfltv'", keywords)).toBe(false);
    expect(holds("condition", "wallet.label == 'treasury'", keywords)).toBe(false);
  });

  it("canonicalizes each kind as documented", () => {
    expect(canonical(`0X${uncompressed.toUpperCase()}`, "public_key")).toBe(key.publicKey.toLowerCase());
    expect(canonical("0xA9059CBB", "hex")).toBe("a9059cbb");
    expect(canonical("not hex", "hex")).toBe("not hex");
    expect(canonical(TRON_HEX, "address")).toBe(TRON);
    expect(canonical("BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ", "address")).toBe("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
    expect(canonical("Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "address")).toBe("Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
    expect(canonical("CFO@Corp.Example", "email")).toBe("cfo@corp.example");
  });

  it("still compares untyped 0x-hex (ABI arguments, EIP-712 values) in any case", () => {
    const keywords = { eth: { tx: { contract_call_args: { recipient: "0x3333333333333333333333333333333333333333", hash: "0xabcdef" } } } };
    expect(holds("condition", "eth.tx.contract_call_args['hash'] == '0xABCDEF'", keywords)).toBe(true);
  });
});
