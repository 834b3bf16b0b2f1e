/**
 * The load scenarios (`bench/load.ts`, `bench/scale.ts`): whoami, update_user_name, sign_raw_payload and create_wallet
 * as the root user, pre-signed (every activity body distinct), at 1 and 50 connections. An organization holds at most
 * 100 wallets, so create_wallet runs in sub-organizations made for each run, rooted by the same API key (as an
 * application that gives each of its users a sub-organization with a wallet does), in turn.
 */
import type { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { randomBytes } from "node:crypto";
import { completed, drive, sign, type Measured } from "./drive.js";
import { ETH, type BuiltServerProcess } from "./support.js";

export const CONNECTIONS = [1, 50] as const;
const RENAMED_USERS = 50;
/** Wallets a run creates in each of its sub-organizations (the API refuses an organization's 101st). */
const WALLETS_PER_SUB_ORGANIZATION = 100;

export type Scenario = "whoami" | "rename" | "sign" | "wallet";
export const SCENARIOS: Scenario[] = (process.env.BENCH_SCENARIOS?.split(",") as Scenario[] | undefined) ?? [
  "whoami",
  "rename",
  "sign",
  "wallet",
];
/** Requests per measured run: at 1 connection, at 50. */
export type Amounts = Record<Scenario, readonly [number, number]>;

/** What the scenarios act on: the users renamed in turn and the signing wallet's address. */
export interface ScenarioSubjects {
  userIds: string[];
  signer: string;
}

export async function prepareScenarios(strongroom: BuiltServerProcess): Promise<ScenarioSubjects> {
  const client = strongroom.client();
  const { userIds } = await client.createUsers({
    users: Array.from({ length: RENAMED_USERS }, (_, i) => ({
      userName: `renamed ${i}`,
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
      userTags: [],
    })),
  });
  const { addresses } = await client.createWallet({ walletName: "signer", accounts: [ETH] });
  return { userIds, signer: addresses[0]! };
}

/**
 * New sub-organizations with room for `wallets` wallets between them, each rooted by a user holding the root user's API
 * key (so the same stamper acts in all of them).
 */
export async function walletHolders(strongroom: BuiltServerProcess, wallets: number): Promise<string[]> {
  const client = strongroom.client();
  const holders: string[] = [];
  for (let i = 0; i < Math.ceil(wallets / WALLETS_PER_SUB_ORGANIZATION); i++) {
    const { subOrganizationId } = await client.createSubOrganization({
      subOrganizationName: `wallets ${randomBytes(6).toString("hex")}`,
      rootUsers: [
        {
          userName: "wallet owner",
          apiKeys: [{ apiKeyName: "bench", publicKey: strongroom.root.apiPublicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    holders.push(subOrganizationId);
  }
  return holders;
}

/** The `n`th create_wallet body (one Ethereum account), in `organizationId`. */
export const createWalletBody = (organizationId: string, n: number): string =>
  JSON.stringify({
    type: "ACTIVITY_TYPE_CREATE_WALLET",
    timestampMs: String(Date.now() + n),
    organizationId,
    parameters: { walletName: `load ${n}`, accounts: [ETH] },
  });

export async function runScenarios(
  strongroom: BuiltServerProcess,
  stamper: ApiKeyStamper,
  { userIds, signer }: ScenarioSubjects,
  amounts: Amounts,
): Promise<Record<string, Measured[]>> {
  const { organizationId, userId } = strongroom.root;
  let serial = 0;
  const activity = (type: string, parameters: unknown) =>
    JSON.stringify({ type, timestampMs: String(Date.now() + serial++), organizationId, parameters });
  const signMany = (count: number, path: string, body: () => string) =>
    Promise.all(Array.from({ length: count }, () => sign(stamper, path, body())));
  const results: Record<string, Measured[]> = {};

  for (const scenario of SCENARIOS) {
    process.stderr.write(`${scenario}\n`);
    const runs: Measured[] = [];
    for (const [index, connections] of CONNECTIONS.entries()) {
      const amount = amounts[scenario][index]!;
      if (scenario === "whoami") {
        const whoami = [await sign(stamper, "/public/v1/query/whoami", JSON.stringify({ organizationId }))];
        const ok = (body: string) => body.includes(userId);
        if (index === 0) await drive(strongroom, 10, whoami, ok, 1000);
        runs.push(await drive(strongroom, connections, whoami, ok, amount));
        continue;
      }
      let bodies: () => string;
      let path: string;
      if (scenario === "rename") {
        path = "/public/v1/submit/update_user_name";
        bodies = () => {
          const n = serial;
          return activity("ACTIVITY_TYPE_UPDATE_USER_NAME", { userId: userIds[n % userIds.length], userName: `renamed ${n}` });
        };
      } else if (scenario === "sign") {
        path = "/public/v1/submit/sign_raw_payload";
        bodies = () =>
          activity("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {
            signWith: signer,
            payload: randomBytes(32).toString("hex"),
            encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
            hashFunction: "HASH_FUNCTION_NO_OP",
          });
      } else {
        path = "/public/v1/submit/create_wallet";
        const holders = await walletHolders(strongroom, amount + connections + 1);
        let asked = 0;
        bodies = () => createWalletBody(holders[asked++ % holders.length]!, serial++);
      }
      if (index === 0 && scenario !== "wallet") await drive(strongroom, 10, await signMany(150, path, bodies), completed); // warm-up
      const signed = await signMany(amount + connections + 1, path, bodies);
      runs.push(await drive(strongroom, connections, signed, completed));
    }
    results[scenario] = runs;
  }
  return results;
}
