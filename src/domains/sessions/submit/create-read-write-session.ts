import { Type } from "@sinclair/typebox";
import { Id, Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { issueCredential } from "../issue-credential.js";
import { sessionSeconds, sessionUser } from "../sessions.js";
import { requireTargetKey } from "../../../crypto/target-key.js";
import { mustExist } from "../../references.js";

export const createReadWriteSession = defineActivity({
  operation: "create_read_write_session",
  type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
  intentKey: "createReadWriteSessionIntentV2",
  resultKey: "createReadWriteSessionResultV2",
  result: Type.Object({
    organizationId: Type.String(),
    organizationName: Type.String(),
    userId: Type.String(),
    username: Type.String(),
    apiKeyId: Type.String(),
    credentialBundle: Type.String(),
  }),
  sdkMethod: "createReadWriteSession",
  summary: "A fresh P-256 session key registered as an expiring API key of the user, returned HPKE-encrypted to the client's key",
  resource: "AUTH",
  action: "CREATE",
  subOrganizationCredentials: true,
  parameters: Type.Object({
    targetPublicKey: Type.String(),
    userId: Type.Optional(Id()),
    apiKeyName: Type.Optional(Name()),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
  }),
  selfServiceUserId: (params, requesterUserId) => params.userId ?? requesterUserId,
  enrolls: (params, requesterUserId) => ({ userId: params.userId ?? requesterUserId, factors: ["session"] }),
  async validate({ db, organization, requesterUserId }, params) {
    requireTargetKey(params.targetPublicKey);
    sessionSeconds(params.expirationSeconds);
    await mustExist(sessionUser(db, organization.id, params.userId ?? requesterUserId));
  },
  async execute(ctx, params) {
    const user = await sessionUser(ctx.tx, ctx.organization.id, params.userId ?? ctx.requesterUserId);
    const { apiKeyId, credentialBundle } = await issueCredential(ctx, {
      userId: user.id,
      targetPublicKey: params.targetPublicKey,
      credentialType: "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
      apiKeyName: params.apiKeyName ?? `Read Write Session - ${ctx.now.toISOString()}`,
      expirationSeconds: params.expirationSeconds,
      invalidateExisting: params.invalidateExisting,
    });
    return {
      organizationId: ctx.organization.id,
      organizationName: ctx.organization.name,
      userId: user.id,
      username: user.name,
      apiKeyId,
      credentialBundle,
    };
  },
});
