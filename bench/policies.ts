/**
 * What 100 policies cost a request: sign_raw_payload by a non-root user whose permission comes from a
 * policy, with 1 and then 100 policies in the organization, beside the evaluation of the 100 policies
 * alone (parsed once, as the server caches them) in this process.
 *
 *   npm run bench:policies
 */
import { generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes } from "node:crypto";
import { compilePolicyExpression, evaluateExpression, type Value } from "../src/policy/language/index.js";
import {
  ETH,
  loadAverageSampler,
  machine,
  percentile,
  sequentialLatencies,
  startBuiltServerProcess,
  store,
  writeResult,
} from "./support.js";

/** 99 policies that do not apply to the measured request but must all be evaluated. */
function otherPolicies(walletId: string) {
  return Array.from({ length: 99 }, (_, i) => ({
    policyName: `other ${i}`,
    effect: i % 10 === 0 ? ("EFFECT_DENY" as const) : ("EFFECT_ALLOW" as const),
    consensus: `approvers.any(user, user.tags.contains('tag-${i}')) || approvers.count() >= ${i + 3}`,
    condition:
      i % 3 === 0
        ? `activity.resource == 'WALLET' && activity.action in ['CREATE', 'DELETE']`
        : i % 3 === 1
          ? `activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && wallet.id != '${walletId}' && activity.params.encoding == 'PAYLOAD_ENCODING_EIP712'`
          : `activity.kind in ['CREATE_USERS', 'DELETE_USERS', 'UPDATE_USER_NAME'] && activity.action == 'CREATE'`,
    notes: "",
  }));
}

async function main() {
  const load = loadAverageSampler();
  const strongroom = await startBuiltServerProcess();
  try {
    const root = strongroom.client();
    const key = generateP256KeyPair();
    const { userIds } = await root.createUsers({
      users: [
        {
          userName: "alice",
          apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const alice = strongroom.client({ publicKey: key.publicKey, privateKey: key.privateKey });
    const { walletId, addresses } = await root.createWallet({ walletName: "policed", accounts: [ETH] });
    const allow = {
      policyName: "alice signs with the policed wallet",
      effect: "EFFECT_ALLOW" as const,
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      condition: `activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && wallet.id == '${walletId}'`,
      notes: "",
    };
    await root.createPolicy(allow);
    const sign = () =>
      alice.signRawPayload({
        signWith: addresses[0]!,
        payload: randomBytes(32).toString("hex"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
    const onePolicy = await sequentialLatencies(500, sign);
    const others = otherPolicies(walletId);
    await root.createPolicies({ policies: others });
    const hundredPolicies = await sequentialLatencies(500, sign);

    // The evaluation alone, with the keyword values this request produces.
    const compiled = [allow, ...others].map((p) => ({
      condition: compilePolicyExpression(p.condition, "condition"),
      consensus: compilePolicyExpression(p.consensus, "consensus"),
    }));
    const condition: Record<string, Value> = {
      activity: {
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        kind: "SIGN_RAW_PAYLOAD",
        resource: "PRIVATE_KEY",
        action: "SIGN",
        params: { encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hash_function: "HASH_FUNCTION_NO_OP" },
      },
      wallet: { id: walletId, label: "policed", exported: false, imported: false },
      wallet_account: { address: addresses[0]! },
    };
    const consensus: Record<string, Value> = { approvers: [{ id: userIds[0]!, tags: [], email: "", alias: "alice" }], credentials: [] };
    const rounds = 2000;
    const start = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const policy of compiled) {
        evaluateExpression(policy.condition, { keywords: condition, now: Date.now() });
        evaluateExpression(policy.consensus, { keywords: consensus, now: Date.now() });
      }
    }
    const evaluationMs = (performance.now() - start) / rounds;

    const report = {
      machine: machine(),
      store: store(),
      signRawPayloadP50Ms: {
        onePolicy: +percentile(onePolicy, 50).toFixed(2),
        hundredPolicies: +percentile(hundredPolicies, 50).toFixed(2),
      },
      signRawPayloadP99Ms: {
        onePolicy: +percentile(onePolicy, 99).toFixed(2),
        hundredPolicies: +percentile(hundredPolicies, 99).toFixed(2),
      },
      evaluating100PoliciesMs: +evaluationMs.toFixed(3),
      evaluationShareOfP50: `${((evaluationMs / percentile(hundredPolicies, 50)) * 100).toFixed(1)}%`,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    writeResult({
      benchmark: `policies-${store() === "PostgreSQL" ? "postgres" : "pglite"}`,
      loadAverage: load.finish(),
      limits: { signRawPayloadP50MsWithOnePolicy: report.signRawPayloadP50Ms.onePolicy },
      figures: report,
      // The same request with one policy is the limit of the one with 100 (same run, same server).
      ratios: {
        "sign p50: with one policy ÷ with 100": +(
          report.signRawPayloadP50Ms.onePolicy / report.signRawPayloadP50Ms.hundredPolicies
        ).toFixed(3),
      },
    });
  } finally {
    await strongroom.stop();
  }
}

await main();
