/**
 * What a velocity control costs a signature: sign_transaction (a 1-wei ETH transfer) by a non-root user whose
 * permission comes from a policy, in one run on one server — first with no control, then with a daily ETH cap
 * per user the policy names (its bucket locked, its rolling window summed, the transfer recorded), then with
 * the same control present but named by no policy (recorded only). Each phase is measured twice, alternating,
 * so drift on a shared machine shows as spread rather than as a difference.
 *
 *   npm run bench:velocity
 */
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { serializeTransaction } from "viem";
import { machine, percentile, sequentialLatencies, startBuiltServerProcess, store } from "./support.js";

const ETH = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
} as const;
const SIGNATURES = 300;

async function main() {
  const strongroom = await startBuiltServerProcess();
  try {
    const root = strongroom.client();
    const http = new TurnkeyClient({ baseUrl: strongroom.url }, new ApiKeyStamper(strongroom.root));
    const organizationId = strongroom.root.organizationId;
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
    const { addresses } = await root.createWallet({ walletName: "capped", accounts: [ETH] });
    const consensus = `approvers.any(user, user.id == '${userIds[0]}')`;
    const { policyId } = await root.createPolicy({
      policyName: "alice signs",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'PRIVATE_KEY'",
      consensus,
      notes: "",
    });
    let nonce = 0;
    const sign = () =>
      alice.signTransaction({
        signWith: addresses[0]!,
        type: "TRANSACTION_TYPE_ETHEREUM",
        unsignedTransaction: serializeTransaction({
          type: "eip1559",
          chainId: 1,
          nonce: nonce++,
          to: "0x2222222222222222222222222222222222222222",
          value: 1n,
          gas: 21000n,
          maxFeePerGas: 2n,
          maxPriorityFeePerGas: 1n,
        }).slice(2),
      });
    const setCondition = (condition: string) => root.updatePolicy({ policyId, policyCondition: condition });
    const { activity } = await http.createVelocityControl({
      type: "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
      timestampMs: String(Date.now()),
      organizationId,
      parameters: {
        name: "daily ETH",
        identifier: "daily_eth",
        dataSource: { chainAssetTransfer: { definition: [{ caip19: "eip155:1/slip44:60", decimals: "18" }] } },
        aggregation: {
          method: "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM",
          operator: "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
          threshold: "1000000",
          window: { rolling: { duration: "86400" } },
          groupBy: { user: {} },
        },
      },
    });
    const controlId = activity.result.createVelocityControlResult!.velocityControlId;
    const deleteControl = () =>
      http.deleteVelocityControl({
        type: "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { velocityControlId: controlId },
      });

    // Phases: named (policy reads controls.daily_eth) ×2, recorded only ×2, then no control at all ×2 (the control is deleted).
    const named: number[][] = [];
    const recordedOnly: number[][] = [];
    for (let round = 0; round < 2; round++) {
      await setCondition("activity.resource == 'PRIVATE_KEY' && controls.daily_eth");
      named.push(await sequentialLatencies(SIGNATURES, sign));
      await setCondition("activity.resource == 'PRIVATE_KEY'");
      recordedOnly.push(await sequentialLatencies(SIGNATURES, sign));
    }
    await deleteControl();
    const none = [await sequentialLatencies(SIGNATURES, sign), await sequentialLatencies(SIGNATURES, sign)];
    const p = (runs: number[][], q: number) => runs.map((run) => +percentile(run, q).toFixed(2));
    process.stdout.write(
      `${JSON.stringify(
        {
          machine: machine(),
          store: store(),
          signaturesPerPhase: SIGNATURES,
          p50Ms: { noControl: p(none, 50), controlNamedByPolicy: p(named, 50), controlRecordedOnly: p(recordedOnly, 50) },
          p99Ms: { noControl: p(none, 99), controlNamedByPolicy: p(named, 99), controlRecordedOnly: p(recordedOnly, 99) },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await strongroom.stop();
  }
}

await main();
