import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { requirePrivateKey } from "../../../records/private-key.js";
import { Id, Name, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertTagCapacity, assertTagNameFree } from "../../tags.js";

export const createPrivateKeyTag = defineActivity({
  operation: "create_private_key_tag",
  type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
  intentKey: "createPrivateKeyTagIntent",
  resultKey: "createPrivateKeyTagResult",
  result: Type.Object({ privateKeyTagId: Type.String(), privateKeyIds: IdList() }),
  sdkMethod: "createPrivateKeyTag",
  summary: "Create a private key tag and attach it to private keys",
  resource: "PRIVATE_KEY",
  action: "CREATE",
  parameters: Type.Object({ privateKeyTagName: Name(), privateKeyIds: Type.Array(Id(), { maxItems: 100 }) }),
  async validate({ db, organization }, { privateKeyIds }) {
    for (const [index, privateKeyId] of privateKeyIds.entries())
      await mustExist(requirePrivateKey(db, organization.id, privateKeyId, `privateKeyIds[${index}]`));
  },
  async execute({ tx, organization, now }, { privateKeyTagName, privateKeyIds }) {
    await assertTagCapacity(tx, organization);
    await assertTagNameFree(tx, "private_key_tags", organization.id, privateKeyTagName, "privateKeyTagName");
    const privateKeyTagId = randomUUID();
    await tx.query("INSERT INTO private_key_tags (id, organization_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)", [
      privateKeyTagId,
      organization.id,
      privateKeyTagName,
      now,
    ]);
    for (const [index, privateKeyId] of privateKeyIds.entries()) {
      await requirePrivateKey(tx, organization.id, privateKeyId, `privateKeyIds[${index}]`);
      await tx.query("INSERT INTO private_key_tag_assignments (tag_id, private_key_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
        privateKeyTagId,
        privateKeyId,
      ]);
    }
    return { privateKeyTagId, privateKeyIds };
  },
});
