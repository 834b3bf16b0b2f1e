import { p256 } from "@noble/curves/nist.js";
import { Type } from "@sinclair/typebox";
import { credentialBundle } from "../../crypto/bundles.js";
import { Id, Int64String, Name } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { addApiKeys } from "../shared/credentials.js";
import { invalidateSessionKeys, sessionSeconds, sessionUser } from "../shared/sessions.js";
import { requireTargetKey } from "../shared/target-key.js";

const SESSION_KEY = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256";

export const createReadWriteSession = defineActivity({
  operation: "create_read_write_session",
  type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
  intentKey: "createReadWriteSessionIntentV2",
  resultKey: "createReadWriteSessionResultV2",
  sdkMethod: "createReadWriteSession",
  summary: "A fresh P-256 session key registered as an expiring API key of the user, returned HPKE-encrypted to the client's key",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    targetPublicKey: Type.String(),
    userId: Type.Optional(Id()),
    apiKeyName: Type.Optional(Name()),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
  }),
  selfServiceUserId: (params, requesterUserId) => params.userId ?? requesterUserId,
  async execute({ tx, organization, now, requesterUserId }, params) {
    const target = requireTargetKey(params.targetPublicKey);
    const seconds = sessionSeconds(params.expirationSeconds);
    const user = await sessionUser(tx, organization.id, params.userId ?? requesterUserId);
    if (params.invalidateExisting) await invalidateSessionKeys(tx, user.id, [SESSION_KEY]);
    const sessionKey = p256.utils.randomSecretKey();
    const [apiKeyId] = await addApiKeys(
      tx,
      { organizationId: organization.id, userId: user.id, now },
      [
        {
          apiKeyName: params.apiKeyName ?? `Read Write Session - ${now.toISOString()}`,
          publicKey: Buffer.from(p256.getPublicKey(sessionKey, true)).toString("hex"),
          curveType: "API_KEY_CURVE_P256",
          expirationSeconds: String(seconds),
          credentialType: SESSION_KEY,
        },
      ],
      "session",
    );
    return {
      organizationId: organization.id,
      organizationName: organization.name,
      userId: user.id,
      username: user.name,
      apiKeyId,
      credentialBundle: await credentialBundle(sessionKey, target),
    };
  },
});
