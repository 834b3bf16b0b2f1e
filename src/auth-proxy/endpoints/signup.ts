import { Type, type Static } from "@sinclair/typebox";
import { decodeJwt } from "jose";
import { ApiKeyParams, AuthenticatorParams, LIMITS, OauthProviderParams } from "../../domains/credentials/params.js";
import { WalletParams } from "../../domains/wallets/wallets.js";
import { invalidArgument } from "../../errors.js";
import { Name } from "../../schema/common.js";
import { submitAsProxy } from "../act.js";
import { defineEndpoint, type ProxyContext } from "../endpoint.js";
import { otpMethod, requireMethod } from "../methods.js";

const ClientSignature = Type.Object({
  publicKey: Type.String({ minLength: 1 }),
  scheme: Type.String({ minLength: 1 }),
  message: Type.String({ minLength: 1 }),
  signature: Type.String({ minLength: 1 }),
});

/** v1 signup: OAuth providers are always given by an OIDC token. */
const OauthProviderParamsV1 = Type.Object({
  providerName: Name("Human-readable name of the provider"),
  oidcToken: Type.String({ minLength: 1 }),
});

const signupBody = <P extends typeof OauthProviderParams | typeof OauthProviderParamsV1>(provider: P) =>
  Type.Object({
    userEmail: Type.Optional(Type.String({ maxLength: 320 })),
    userPhoneNumber: Type.Optional(Type.String({ maxLength: 32 })),
    userTag: Type.Optional(Type.String()),
    userName: Type.Optional(Type.String({ maxLength: 256 })),
    organizationName: Type.Optional(Type.String({ maxLength: 256 })),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
    // No more than one user may hold (each attestation and token is verified; expiring keys past the limit
    // would each be inserted and then deleted again).
    apiKeys: Type.Optional(Type.Array(ApiKeyParams, { maxItems: LIMITS.longLivedApiKeysPerUser + LIMITS.expiringApiKeysPerUser })),
    authenticators: Type.Optional(Type.Array(AuthenticatorParams, { maxItems: LIMITS.authenticatorsPerUser })),
    oauthProviders: Type.Optional(Type.Array(provider, { maxItems: LIMITS.oauthProvidersPerUser })),
    wallet: Type.Optional(WalletParams),
    clientSignature: Type.Optional(ClientSignature),
  });

const SignupV2Body = signupBody(OauthProviderParams);
type SignupInput = Static<typeof SignupV2Body>;

/** Which of the config's authentication methods a signup uses. */
function checkMethods(ctx: ProxyContext, body: SignupInput): void {
  if ((body.authenticators ?? []).length > 0) requireMethod(ctx, "passkey");
  if ((body.oauthProviders ?? []).length > 0) requireMethod(ctx, "oauth");
  if (body.verificationToken) {
    let verificationType = "";
    try {
      verificationType = String(decodeJwt(body.verificationToken).verification_type ?? "");
    } catch {
      // create_sub_organization refuses a malformed token with a precise message.
    }
    requireMethod(ctx, otpMethod(verificationType));
  }
  if (!body.verificationToken && (body.authenticators ?? []).length === 0 && (body.oauthProviders ?? []).length === 0)
    requireMethod(ctx, "wallet");
}

/**
 * A signup is create_sub_organization in the config's organization, submitted by the proxy user: one root
 * user (threshold 1) with the given contact details and credentials, and the optional wallet. The verification
 * token and client signature go along and are checked by the activity itself.
 */
async function signup(ctx: ProxyContext, body: SignupInput): Promise<Record<string, unknown>> {
  if (body.userTag !== undefined) {
    throw invalidArgument(
      "userTag: not supported: a new sub-organization has no user tags yet; tag the user with create_user_tag after signup",
      [{ field: "userTag", description: "not supported at signup" }],
    );
  }
  checkMethods(ctx, body);
  const maxAccounts = ctx.services.limits.signupWalletAccounts;
  if (body.wallet && body.wallet.accounts.length > maxAccounts) {
    const why = `at most ${maxAccounts} accounts in a signup's wallet (AUTH_PROXY_SIGNUP_MAX_WALLET_ACCOUNTS), not ${body.wallet.accounts.length}; derive more later with create_wallet_accounts`;
    throw invalidArgument(`wallet.accounts: ${why}`, [{ field: "wallet.accounts", description: why }]);
  }
  const timestamp = ctx.services.clock().getTime();
  const userName = body.userName || body.userEmail || body.userPhoneNumber || `user-${timestamp}`;
  const { result, appProofs } = await submitAsProxy(
    ctx,
    "create_sub_organization",
    ctx.config.organization_id,
    {
      subOrganizationName: body.organizationName || `sub-org-${timestamp}`,
      rootUsers: [
        {
          userName,
          ...(body.userEmail ? { userEmail: body.userEmail } : {}),
          ...(body.userPhoneNumber ? { userPhoneNumber: body.userPhoneNumber } : {}),
          apiKeys: body.apiKeys ?? [],
          authenticators: body.authenticators ?? [],
          oauthProviders: body.oauthProviders ?? [],
        },
      ],
      rootQuorumThreshold: 1,
      ...(body.wallet ? { wallet: body.wallet } : {}),
      ...(body.verificationToken ? { verificationToken: body.verificationToken } : {}),
      ...(body.clientSignature ? { clientSignature: body.clientSignature } : {}),
    },
    { generateAppProofs: body.wallet !== undefined },
  );
  const wallet = result.wallet as { walletId: string; addresses: string[] } | undefined;
  return {
    organizationId: result.subOrganizationId,
    userId: (result.rootUserIds as string[])[0],
    ...(wallet ? { wallet: { walletId: wallet.walletId, addresses: wallet.addresses } } : {}),
    ...(appProofs.length > 0 ? { appProofs } : {}),
  };
}

export const signupV2 = defineEndpoint({
  path: "/v1/signup_v2",
  summary:
    "Create a sub-organization with one root user (email/phone, API keys, passkeys, OAuth providers by token or claims) and an optional wallet",
  body: SignupV2Body,
  handle: signup,
});

export const signupV1 = defineEndpoint({
  path: "/v1/signup",
  summary: "Signup with OAuth providers given by OIDC token only (the first version of signup_v2)",
  body: signupBody(OauthProviderParamsV1),
  handle: signup,
});
