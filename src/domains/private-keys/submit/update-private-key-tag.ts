import { Type } from "@sinclair/typebox";
import { requirePrivateKey } from "../../../records/private-key.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertTagNameFree, requireTag } from "../../tags.js";

export const updatePrivateKeyTag = defineActivity({
  operation: "update_private_key_tag",
  type: "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
  intentKey: "updatePrivateKeyTagIntent",
  resultKey: "updatePrivateKeyTagResult",
  result: Type.Object({ privateKeyTagId: Type.String() }),
  sdkMethod: "updatePrivateKeyTag",
  summary: "Rename a private key tag and change which private keys carry it",
  resource: "PRIVATE_KEY",
  action: "UPDATE",
  parameters: Type.Object({
    privateKeyTagId: Id(),
    newPrivateKeyTagName: Type.Optional(Name()),
    addPrivateKeyIds: Type.Array(Id(), { maxItems: 100 }),
    removePrivateKeyIds: Type.Array(Id(), { maxItems: 100 }),
  }),
  async validate({ db, organization }, { privateKeyTagId, addPrivateKeyIds, removePrivateKeyIds }) {
    await mustExist(requireTag(db, "private_key_tags", organization.id, privateKeyTagId, "privateKeyTagId"));
    for (const [index, id] of addPrivateKeyIds.entries())
      await mustExist(requirePrivateKey(db, organization.id, id, `addPrivateKeyIds[${index}]`));
    for (const [index, id] of removePrivateKeyIds.entries())
      await mustExist(requirePrivateKey(db, organization.id, id, `removePrivateKeyIds[${index}]`));
  },
  async execute({ tx, organization, now }, { privateKeyTagId, newPrivateKeyTagName, addPrivateKeyIds, removePrivateKeyIds }) {
    const tag = await requireTag(tx, "private_key_tags", organization.id, privateKeyTagId, "privateKeyTagId");
    if (newPrivateKeyTagName !== undefined && newPrivateKeyTagName !== tag.name) {
      await assertTagNameFree(tx, "private_key_tags", organization.id, newPrivateKeyTagName, "newPrivateKeyTagName");
      await tx.query("UPDATE private_key_tags SET name = $2 WHERE id = $1", [privateKeyTagId, newPrivateKeyTagName]);
    }
    for (const [index, id] of addPrivateKeyIds.entries()) {
      await requirePrivateKey(tx, organization.id, id, `addPrivateKeyIds[${index}]`);
      await tx.query("INSERT INTO private_key_tag_assignments (tag_id, private_key_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
        privateKeyTagId,
        id,
      ]);
    }
    for (const [index, id] of removePrivateKeyIds.entries()) {
      await requirePrivateKey(tx, organization.id, id, `removePrivateKeyIds[${index}]`);
      await tx.query("DELETE FROM private_key_tag_assignments WHERE tag_id = $1 AND private_key_id = $2", [privateKeyTagId, id]);
    }
    await tx.query("UPDATE private_key_tags SET updated_at = $2 WHERE id = $1", [privateKeyTagId, now]);
    return { privateKeyTagId };
  },
});
