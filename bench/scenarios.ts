/**
 * The load scenarios (`bench/load.ts`, `bench/scale.ts`): whoami, update_user_name, sign_raw_payload and create_wallet
 * as the root user, pre-signed (every activity body distinct), at 1 and 50 connections.
 */
import type { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { randomBytes } from "node:crypto";
import { completed, drive, sign, type Measured } from "./drive.js";
import { ETH, type BuiltServerProcess } from "./support.js";

export const CONNECTIONS = [1, 50] as const;
const RENAMED_USERS = 50;

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

export async function runScenarios(
  strongroom: BuiltServerProcess,
  stamper: ApiKeyStamper,
  { userIds, signer }: ScenarioSubjects,
  amounts: Amounts,
): Promise<Record<string, Measured[]>> {
  const { organizationId, userId } = strongroom.root;
  const client = strongroom.client();
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
        bodies = () => activity("ACTIVITY_TYPE_CREATE_WALLET", { walletName: `load ${serial}`, accounts: [ETH] });
      }
      if (index === 0 && scenario !== "wallet") await drive(strongroom, 10, await signMany(150, path, bodies), completed); // warm-up
      const signed = await signMany(amount + connections + 1, path, bodies);
      runs.push(await drive(strongroom, connections, signed, completed));
      if (scenario === "wallet") {
        // An organization holds at most 100 wallets: make room for the next run.
        const { wallets } = await client.getWallets({});
        const ids = wallets.filter((w) => w.walletName.startsWith("load ")).map((w) => w.walletId);
        if (ids.length > 0) await client.deleteWallets({ walletIds: ids, deleteWithoutExport: true });
      }
    }
    results[scenario] = runs;
  }
  return results;
}
