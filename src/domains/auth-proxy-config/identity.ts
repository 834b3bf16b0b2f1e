import { generateApiKeyPair } from "../../auth/api-key-stamper.js";
import { insertPolicy } from "../policies/policies.js";
import { createUser } from "../users/users.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import { proxyKeyContext } from "./configs.js";

/**
 * The activities the auth proxy submits, by operation, with the activity type each is submitted as.
 * The proxy user's policy allows exactly these types, so what the proxy may do is visible in the
 * organization's own policies (and narrowing or deleting that policy narrows or stops the proxy).
 */
export const PROXY_ACTIVITY_TYPES = {
  create_sub_organization: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
  init_otp: "ACTIVITY_TYPE_INIT_OTP_V3",
  verify_otp: "ACTIVITY_TYPE_VERIFY_OTP_V2",
  otp_login: "ACTIVITY_TYPE_OTP_LOGIN_V2",
  oauth_login: "ACTIVITY_TYPE_OAUTH_LOGIN",
  oauth2_authenticate: "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
} as const;

export type ProxyOperation = keyof typeof PROXY_ACTIVITY_TYPES;

export function proxyPolicyCondition(): string {
  return `activity.type in [${Object.values(PROXY_ACTIVITY_TYPES)
    .map((t) => `'${t}'`)
    .join(", ")}]`;
}

async function freeUserName(tx: Queryable, organizationId: string, configId: string): Promise<string> {
  const [taken] = await tx.query("SELECT 1 FROM users WHERE organization_id = $1 AND name = 'Auth Proxy'", [organizationId]);
  return taken ? `Auth Proxy ${configId}` : "Auth Proxy";
}

/** Creates the proxy's user (not root) with its P-256 API key, the key's private half sealed under the kek. */
export async function createProxyUser(
  tx: Queryable,
  services: Services,
  target: { organizationId: string; configId: string; now: Date },
): Promise<{ userId: string; publicKey: string; sealedPrivateKey: string }> {
  const key = generateApiKeyPair();
  const userId = await createUser(
    tx,
    { organizationId: target.organizationId, now: target.now, isRoot: false, sessionProfileId: undefined },
    {
      userName: await freeUserName(tx, target.organizationId, target.configId),
      apiKeys: [{ apiKeyName: `Auth proxy key (config ${target.configId})`, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
    },
    "authProxyUser",
  );
  return { userId, publicKey: key.publicKey, sealedPrivateKey: services.kek.seal(key.privateKey, proxyKeyContext(target.configId)) };
}

/** The policy that lets the proxy user submit exactly the authentication activities it performs. */
export async function createProxyPolicy(
  tx: Queryable,
  target: { organizationId: string; configId: string; userId: string; now: Date },
): Promise<string> {
  return insertPolicy(
    tx,
    target.organizationId,
    {
      policyName: `Auth proxy ${target.configId}`,
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${target.userId}')`,
      condition: proxyPolicyCondition(),
      notes:
        "Created by enable_auth_proxy: lets the auth proxy's user submit the signup, OTP and OAuth activities it performs for the proxy's clients. Narrowing or deleting this policy narrows or stops the auth proxy.",
    },
    "authProxyPolicy.",
    target.now,
  );
}
