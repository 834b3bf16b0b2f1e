/**
 * What a velocity control costs a signature: sign_transaction (a 1-wei ETH transfer) by non-root users whose
 * permission comes from a policy, in one run on one server, their requests interleaved: one in an organization
 * with no control, one whose policy names a daily ETH cap per user (its bucket locked, its rolling window
 * summed, the transfer recorded), one in the same organization whose policy names no control (recorded only).
 *
 *   npm run bench:velocity
 */
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { serializeTransaction } from "viem";
import { Turnkey } from "@turnkey/sdk-server";
import {
  ETH,
  loadAverageSampler,
  machine,
  percentile,
  startBuiltServerProcess,
  store,
  writeResult,
  type BuiltServerProcess,
} from "./support.js";

const SIGNATURES = 400;
const WARMUP = 30;

/** A non-root user of `organizationId` allowed to sign by one policy whose condition is `condition`; their client. */
async function signer(
  admin: ReturnType<BuiltServerProcess["client"]>,
  strongroom: BuiltServerProcess,
  organizationId: string,
  name: string,
  condition: string,
) {
  const key = generateP256KeyPair();
  const { userIds } = await admin.createUsers({
    organizationId,
    users: [
      {
        userName: name,
        apiKeys: [{ apiKeyName: name, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      },
    ],
  });
  await admin.createPolicy({
    organizationId,
    policyName: `${name} signs`,
    effect: "EFFECT_ALLOW",
    condition,
    consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
    notes: "",
  });
  return clientOf(strongroom, key, organizationId);
}

const clientOf = (strongroom: BuiltServerProcess, key: { publicKey: string; privateKey: string }, organizationId: string) =>
  new Turnkey({
    apiBaseUrl: strongroom.url,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: organizationId,
  }).apiClient();

let nonce = 0;
const transfer = () =>
  serializeTransaction({
    type: "eip1559",
    chainId: 1,
    nonce: nonce++,
    to: "0x2222222222222222222222222222222222222222",
    value: 1n,
    gas: 21000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
  }).slice(2);

async function main() {
  const load = loadAverageSampler();
  const strongroom = await startBuiltServerProcess();
  try {
    const root = strongroom.client();
    const organizationId = strongroom.root.organizationId;
    // An organization without controls: a sub-organization with a root key of its own.
    const subRoot = generateP256KeyPair();
    const { subOrganizationId, wallet } = await root.createSubOrganization({
      subOrganizationName: "no controls",
      rootUsers: [
        {
          userName: "sub root",
          apiKeys: [{ apiKeyName: "root", publicKey: subRoot.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: { walletName: "uncapped", accounts: [ETH] },
    });
    const { addresses } = await root.createWallet({ walletName: "capped", accounts: [ETH] });
    const http = new TurnkeyClient({ baseUrl: strongroom.url }, new ApiKeyStamper(strongroom.root));
    await http.createVelocityControl({
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
    const base = "activity.resource == 'PRIVATE_KEY'";
    const measured = {
      /** A sub-organization with no velocity control at all. */
      noControl: {
        client: await signer(clientOf(strongroom, subRoot, subOrganizationId!), strongroom, subOrganizationId!, "carol", base),
        signWith: wallet!.addresses[0]!,
      },
      /** The policy reads controls.daily_eth: bucket locked, window summed, the transfer recorded. */
      controlNamedByPolicy: {
        client: await signer(root, strongroom, organizationId, "alice", `${base} && controls.daily_eth`),
        signWith: addresses[0]!,
      },
      /** The control exists but no policy names it: the transfer is only recorded. */
      controlRecordedOnly: { client: await signer(root, strongroom, organizationId, "bob", base), signWith: addresses[0]! },
    };
    // Interleaved, one request of each in turn, so a shared machine's drift falls on all three alike.
    const latencies: Record<keyof typeof measured, number[]> = { noControl: [], controlNamedByPolicy: [], controlRecordedOnly: [] };
    for (let i = -WARMUP; i < SIGNATURES; i++) {
      for (const [name, { client, signWith }] of Object.entries(measured) as Array<
        [keyof typeof measured, (typeof measured)["noControl"]]
      >) {
        const started = performance.now();
        await client.signTransaction({ signWith, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: transfer() });
        if (i >= 0) latencies[name].push(performance.now() - started);
      }
    }
    const at = (q: number) =>
      Object.fromEntries(
        Object.entries(latencies).map(([name, runs]) => [
          name,
          +percentile(
            [...runs].sort((a, b) => a - b),
            q,
          ).toFixed(2),
        ]),
      );
    const report = { machine: machine(), store: store(), signaturesEach: SIGNATURES, p50Ms: at(50), p99Ms: at(99) };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const p50 = report.p50Ms;
    writeResult({
      benchmark: `velocity-${store() === "PostgreSQL" ? "postgres" : "pglite"}`,
      loadAverage: load.finish(),
      limits: { signTransactionP50MsWithoutControl: p50.noControl },
      figures: report,
      // The signature in an organization without controls is the limit of the others (same run, interleaved).
      ratios: {
        "sign p50: no control ÷ control named by the policy": +(p50.noControl! / p50.controlNamedByPolicy!).toFixed(3),
        "sign p50: no control ÷ control recorded only": +(p50.noControl! / p50.controlRecordedOnly!).toFixed(3),
      },
    });
  } finally {
    await strongroom.stop();
  }
}

await main();
