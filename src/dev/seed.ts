import { readFileSync } from "node:fs";
import { stampWithApiKey } from "../auth/api-key-stamper.js";
import { ApiError, type ErrorBody } from "../errors.js";
import { activitiesByOperation } from "../pipeline/registry.js";
import { submitActivity } from "../pipeline/submit-activity.js";
import { isVoteDefinition } from "../operations/vote-definition.js";
import type { Services } from "../services.js";

/**
 * What `strongroom dev --seed <file>` creates in the root organization after its root user. Each entry is the
 * `parameters` of the activity named beside it, exactly as the API takes them, so the API reference documents
 * every field. A string may name something created earlier in the file: `{{users.NAME}}`, `{{userTags.NAME}}`,
 * `{{wallets.NAME}}`, `{{privateKeyTags.NAME}}` become its id.
 */
export interface SeedFixture {
  /** create_user_tag, one per name. */
  userTags?: string[];
  /** create_users: each a user of its `users` list (userName, userEmail, userPhoneNumber, apiKeys, authenticators, oauthProviders, userTags). */
  users?: Record<string, unknown>[];
  /** create_wallet: each its parameters (walletName, accounts, mnemonicLength). */
  wallets?: Record<string, unknown>[];
  /** create_private_key_tag, one per name (privateKeyIds empty). */
  privateKeyTags?: string[];
  /** create_policies: each a policy of its `policies` list (policyName, effect, condition, consensus, notes). */
  policies?: Record<string, unknown>[];
  /** create_sub_organization: each its parameters (subOrganizationName, rootUsers, rootQuorumThreshold, wallet…). */
  subOrganizations?: Record<string, unknown>[];
}

const FIXTURE_KEYS = ["userTags", "users", "wallets", "privateKeyTags", "policies", "subOrganizations"];

export function readSeedFile(path: string): SeedFixture {
  let fixture: unknown;
  try {
    fixture = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`--seed ${path}: ${(error as Error).message}`);
  }
  if (typeof fixture !== "object" || fixture === null || Array.isArray(fixture)) throw new Error(`--seed ${path}: not a JSON object`);
  const unknownKeys = Object.keys(fixture).filter((key) => !FIXTURE_KEYS.includes(key) && key !== "$schema");
  if (unknownKeys.length > 0) {
    throw new Error(
      `--seed ${path}: unknown ${unknownKeys.map((k) => JSON.stringify(k)).join(", ")}; the keys are ${FIXTURE_KEYS.join(", ")}`,
    );
  }
  return fixture as SeedFixture;
}

interface Root {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: Uint8Array;
}

/** One activity as the root user, through the whole pipeline (authentication, policies, audit), stamped as the SDK does. */
export async function actAsRoot(
  services: Services,
  root: Root,
  operation: string,
  parameters: unknown,
  organizationId = root.organizationId,
): Promise<Record<string, unknown>> {
  const definition = activitiesByOperation.get(operation);
  if (!definition || isVoteDefinition(definition)) throw new Error(`no ${operation} activity`);
  const body = JSON.stringify({ type: definition.type, timestampMs: String(services.stampClock().getTime()), organizationId, parameters });
  const { activity } = await submitActivity(services, definition, {
    headers: {
      "content-type": "application/json",
      "x-stamp": stampWithApiKey(body, { publicKey: root.apiPublicKey, privateKey: root.apiPrivateKey }),
    },
    rawBody: Buffer.from(body, "utf8"),
    onError: () => undefined,
  });
  if (activity.status !== "ACTIVITY_STATUS_COMPLETED") {
    const failure = activity.failure as ErrorBody | null;
    throw new Error(`${operation} ended ${activity.status}${failure ? `: ${failure.message}` : ""}`);
  }
  return (activity.result[definition.resultKey] ?? {}) as Record<string, unknown>;
}

/** Replaces `{{kind.NAME}}` in every string of `value` with the id of what the fixture created under that name. */
function resolveNames(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\{\{(\w+)\.([^}]+)\}\}/g, (whole, kind: string, name: string) => {
      const id = ids.get(`${kind}.${name}`);
      if (!id) throw new Error(`seed: ${whole} names nothing created before it`);
      return id;
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveNames(v, ids));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveNames(v, ids)]));
  }
  return value;
}

/** What a seed created, by kind in the fixture's order: the names given in the file. */
export type SeedSummary = { kind: string; names: string[] }[];

const KINDS: [key: keyof SeedFixture, one: string, many: string][] = [
  ["userTags", "user tag", "user tags"],
  ["users", "user", "users"],
  ["wallets", "wallet", "wallets"],
  ["privateKeyTags", "private key tag", "private key tags"],
  ["policies", "policy", "policies"],
  ["subOrganizations", "sub-organization", "sub-organizations"],
];

/** "seeded 1 user tag (admins), 2 users (alice, bob), …": so a fixture that created less than meant shows it. */
export function describeSeed(summary: SeedSummary): string {
  const parts = summary.filter((s) => s.names.length > 0);
  if (parts.length === 0) return "the seed file created nothing (it is empty)";
  return (
    "seeded " +
    parts
      .map(({ kind, names }) => {
        const [, one, many] = KINDS.find(([key]) => key === kind)!;
        return `${names.length} ${names.length === 1 ? one : many} (${names.join(", ")})`;
      })
      .join(", ")
  );
}

/** Creates what `fixture` describes, in its order: tags, users, wallets, private key tags, policies, sub-organizations. */
export async function applySeed(services: Services, root: Root, fixture: SeedFixture): Promise<SeedSummary> {
  const ids = new Map<string, string>();
  const act = async (operation: string, parameters: unknown) => {
    try {
      return await actAsRoot(services, root, operation, resolveNames(parameters, ids));
    } catch (error) {
      const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
      throw new Error(`seed: ${operation} ${JSON.stringify(parameters).slice(0, 200)}: ${message}`);
    }
  };
  for (const name of fixture.userTags ?? []) {
    const result = await act("create_user_tag", { userTagName: name, userIds: [] });
    ids.set(`userTags.${name}`, result.userTagId as string);
  }
  for (const user of fixture.users ?? []) {
    const result = await act("create_users", { users: [{ apiKeys: [], authenticators: [], oauthProviders: [], userTags: [], ...user }] });
    ids.set(`users.${String(user.userName)}`, (result.userIds as string[])[0]!);
  }
  for (const wallet of fixture.wallets ?? []) {
    const result = await act("create_wallet", wallet);
    ids.set(`wallets.${String(wallet.walletName)}`, result.walletId as string);
  }
  for (const name of fixture.privateKeyTags ?? []) {
    const result = await act("create_private_key_tag", { privateKeyTagName: name, privateKeyIds: [] });
    ids.set(`privateKeyTags.${name}`, result.privateKeyTagId as string);
  }
  if (fixture.policies?.length) await act("create_policies", { policies: fixture.policies });
  for (const organization of fixture.subOrganizations ?? []) await act("create_sub_organization", organization);
  const nameOf: Record<string, string> = {
    users: "userName",
    wallets: "walletName",
    policies: "policyName",
    subOrganizations: "subOrganizationName",
  };
  return KINDS.map(([key]) => ({
    kind: key,
    names: (fixture[key] ?? []).map((entry: unknown) =>
      typeof entry === "string" ? entry : String((entry as Record<string, unknown>)[nameOf[key]!] ?? "unnamed"),
    ),
  }));
}
