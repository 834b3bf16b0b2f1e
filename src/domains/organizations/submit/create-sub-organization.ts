import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { failedPrecondition, invalidArgument } from "../../../errors.js";
import { Name, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { verifyRegistrationTokens } from "../../credentials/oauth-providers.js";
import { UserParams, checkNewUser, createUser } from "../../users/users.js";
import { consumeVerificationToken, markContactVerified } from "../../users/contacts.js";
import { checkNewWallet, insertWallet, prepareNewWallet, WalletParams } from "../../wallets/wallets.js";
import { verifySignupToken } from "../../../auth/signup-verification.js";
import { WalletResult } from "../../../records/wallet.js";

/** Root users are described like other users, without tags. */
const RootUserParams = Type.Omit(UserParams, ["userTags"]);

/** Sub-organizations have these authentication features enabled unless the request disables them. */
const FEATURE_FLAGS = [
  ["disableEmailRecovery", "FEATURE_NAME_EMAIL_RECOVERY"],
  ["disableEmailAuth", "FEATURE_NAME_EMAIL_AUTH"],
  ["disableSmsAuth", "FEATURE_NAME_SMS_AUTH"],
  ["disableOtpEmailAuth", "FEATURE_NAME_OTP_EMAIL_AUTH"],
] as const;

export const createSubOrganization = defineActivity({
  operation: "create_sub_organization",
  type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
  intentKey: "createSubOrganizationIntentV8",
  resultKey: "createSubOrganizationResultV8",
  secretFields: { intent: ["verificationToken", "rootUsers[].oauthProviders[].oidcToken"] },
  result: Type.Object({ subOrganizationId: Type.String(), wallet: Type.Optional(WalletResult), rootUserIds: IdList() }),
  sdkMethod: "createSubOrganization",
  summary: "Create a sub-organization with its root users, their credentials and its root quorum",
  resource: "ORGANIZATION",
  action: "CREATE",
  parameters: Type.Object({
    subOrganizationName: Name("Name of the sub-organization"),
    rootUsers: Type.Array(RootUserParams, { minItems: 1, maxItems: 100 }),
    rootQuorumThreshold: Type.Integer({ minimum: 1 }),
    wallet: Type.Optional(WalletParams),
    disableEmailRecovery: Type.Optional(Type.Boolean()),
    disableEmailAuth: Type.Optional(Type.Boolean()),
    disableSmsAuth: Type.Optional(Type.Boolean()),
    disableOtpEmailAuth: Type.Optional(Type.Boolean()),
    verificationToken: Type.Optional(Type.String()),
    clientSignature: Type.Optional(Type.Unknown()),
  }),
  async validate({ db, organization, services, now }, params) {
    if (params.rootQuorumThreshold > params.rootUsers.length) {
      throw invalidArgument(
        `rootQuorumThreshold: ${params.rootQuorumThreshold} is more than the ${params.rootUsers.length} root user(s) given`,
        [{ field: "rootQuorumThreshold", description: "must be at most the number of root users" }],
      );
    }
    // A new organization has no tags yet: root users name none.
    for (const [index, user] of params.rootUsers.entries()) await checkNewUser(db, undefined, user, `rootUsers[${index}]`);
    if (params.wallet) checkNewWallet(params.wallet, { mnemonicLength: "wallet.mnemonicLength", accounts: "wallet.accounts" });
    await verifySignupToken(services.signer, { ...params, organizationId: organization.id, rootUsers: params.rootUsers, now });
  },
  // Before the transaction: the wallet's mnemonic and accounts (signups through the auth proxy bring one),
  // and the root users' OIDC tokens, whose issuer's keys may have to be fetched.
  prepare: async (services, { wallet, rootUsers }) => ({
    wallet: wallet
      ? await prepareNewWallet(wallet.mnemonicLength, wallet.accounts, {
          mnemonicLength: "wallet.mnemonicLength",
          accounts: "wallet.accounts",
        })
      : undefined,
    verifiedTokens: await verifyRegistrationTokens(
      services,
      rootUsers.flatMap((user) => user.oauthProviders),
    ),
  }),
  async execute(ctx, params, { wallet: preparedWallet, verifiedTokens }) {
    const { tx, organization, now, services } = ctx;
    if (organization.parent_id) {
      throw failedPrecondition(
        `organization ${organization.id} is itself a sub-organization (of ${organization.parent_id}); sub-organizations cannot create sub-organizations`,
        "INVALID_ACTIVITY_CALLER",
      );
    }
    // Checked at submission too; verified again for its claims, and because the token may have expired since.
    const verified = await verifySignupToken(services.signer, {
      ...params,
      organizationId: organization.id,
      rootUsers: params.rootUsers,
      now,
    });
    if (verified) await consumeVerificationToken(ctx, verified, "USAGE_TYPE_SIGNUP");
    const subOrganizationId = randomUUID();
    const features = FEATURE_FLAGS.map(([flag, name]) => ({ name, value: params[flag] ? "false" : "true" }));
    await tx.query(
      `INSERT INTO organizations (id, name, parent_id, root_quorum_threshold, features, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6)`,
      [subOrganizationId, params.subOrganizationName, organization.id, params.rootQuorumThreshold, JSON.stringify(features), now],
    );
    const rootUserIds: string[] = [];
    for (const [index, user] of params.rootUsers.entries()) {
      rootUserIds.push(
        await createUser(
          tx,
          { organizationId: subOrganizationId, now, isRoot: true, verifiedTokens, sessionProfileId: undefined },
          user,
          `rootUsers[${index}]`,
        ),
      );
    }
    if (verified) await markContactVerified(tx, subOrganizationId, verified.verification_type, verified.contact, now);
    if (!params.wallet || !preparedWallet) return { subOrganizationId, rootUserIds };
    const wallet = await insertWallet(
      tx,
      services,
      { organizationId: subOrganizationId, name: params.wallet.walletName, secret: preparedWallet.secret, imported: false, now },
      params.wallet.accounts,
      preparedWallet.accounts,
      { name: "wallet.walletName", accounts: "wallet.accounts" },
    );
    return { subOrganizationId, wallet, rootUserIds };
  },
});
