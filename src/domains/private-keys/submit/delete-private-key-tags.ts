import { Type } from "@sinclair/typebox";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireTag } from "../../tags.js";

export const deletePrivateKeyTags = defineActivity({
  operation: "delete_private_key_tags",
  type: "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
  intentKey: "deletePrivateKeyTagsIntent",
  resultKey: "deletePrivateKeyTagsResult",
  result: Type.Object({ privateKeyTagIds: IdList(), privateKeyIds: IdList() }),
  sdkMethod: "deletePrivateKeyTags",
  summary: "Delete private key tags; the result lists the private keys that carried them",
  resource: "PRIVATE_KEY",
  action: "DELETE",
  parameters: Type.Object({ privateKeyTagIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { privateKeyTagIds }) {
    for (const [index, tagId] of privateKeyTagIds.entries())
      await mustExist(requireTag(db, "private_key_tags", organization.id, tagId, `privateKeyTagIds[${index}]`));
  },
  async execute({ tx, organization }, { privateKeyTagIds }) {
    for (const [index, tagId] of privateKeyTagIds.entries())
      await requireTag(tx, "private_key_tags", organization.id, tagId, `privateKeyTagIds[${index}]`);
    const carriers = await tx.query<{ private_key_id: string }>(
      "SELECT DISTINCT private_key_id FROM private_key_tag_assignments WHERE tag_id = ANY($1::text[]) ORDER BY private_key_id",
      [privateKeyTagIds],
    );
    await tx.query("DELETE FROM private_key_tags WHERE id = ANY($1::text[]) AND organization_id = $2", [privateKeyTagIds, organization.id]);
    return { privateKeyTagIds, privateKeyIds: carriers.map((c) => c.private_key_id) };
  },
});
