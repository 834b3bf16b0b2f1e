import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";

/** POST /strongroom/v1/query/get_audit_log_key: the key that signs the audit log's checkpoints, and the log's origin. */
export const getAuditLogKey = defineQuery({
  operation: "get_audit_log_key",
  sdkMethod: "getAuditLogKey",
  summary: "The audit log's checkpoint key (a signed-note verifier key) and origin",
  strongroomOnly: true,
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({
    origin: Type.String({ description: "The log's origin: the first line of its checkpoints, and the key's name" }),
    verifierKey: Type.String({ description: "<origin>+<key ID>+base64(0x01 ‖ Ed25519 public key), as Go's sumdb/note reads it" }),
    publicKey: Type.String({ description: "The Ed25519 public key, hex" }),
  }),
  async execute({ services }) {
    const { keys } = services.audit;
    return { origin: keys.origin, verifierKey: keys.verifierKey, publicKey: Buffer.from(keys.publicKey).toString("hex") };
  },
});
