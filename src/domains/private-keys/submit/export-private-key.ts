import { Type } from "@sinclair/typebox";
import { exportBundle } from "../../../crypto/bundles.js";
import { requirePrivateKey } from "../../../records/private-key.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const exportPrivateKey = defineActivity({
  operation: "export_private_key",
  type: "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
  intentKey: "exportPrivateKeyIntent",
  resultKey: "exportPrivateKeyResult",
  result: Type.Object({ privateKeyId: Type.String(), exportBundle: Type.String() }),
  sdkMethod: "exportPrivateKey",
  summary: "Export a private key, HPKE-encrypted to the client's key in a bundle signed by the server",
  resource: "PRIVATE_KEY",
  action: "EXPORT",
  policyTarget: { privateKey: "privateKeyId" },
  policyParams: { target_public_key: "targetPublicKey" },
  parameters: Type.Object({ privateKeyId: Id(), targetPublicKey: Type.String() }),
  async validate({ db, organization }, { privateKeyId, targetPublicKey }) {
    requireTargetKey(targetPublicKey);
    await mustExist(requirePrivateKey(db, organization.id, privateKeyId));
  },
  async execute({ tx, organization, now, services }, { privateKeyId, targetPublicKey }) {
    const target = requireTargetKey(targetPublicKey);
    const key = await requirePrivateKey(tx, organization.id, privateKeyId);
    const bundle = await exportBundle(
      services.kek.open(key.sealed_private_key, `private-key:${key.id}`),
      target,
      organization.id,
      services.signer,
    );
    await tx.query("UPDATE private_keys SET exported = true, updated_at = $2 WHERE id = $1", [key.id, now]);
    return { privateKeyId, exportBundle: bundle };
  },
});
