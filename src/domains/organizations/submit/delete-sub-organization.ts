import { Type } from "@sinclair/typebox";
import { failedPrecondition } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { assertSafeToDelete } from "../../wallets/export-rule.js";

export const deleteSubOrganization = defineActivity({
  operation: "delete_sub_organization",
  type: "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
  intentKey: "deleteSubOrganizationIntent",
  resultKey: "deleteSubOrganizationResult",
  result: Type.Object({ subOrganizationUuid: Type.String() }),
  sdkMethod: "deleteSubOrganization",
  summary: "Delete the sub-organization the request targets, with everything in it (its activities are kept); root quorum only",
  resource: "ORGANIZATION",
  action: "DELETE",
  rootQuorumOnly: true,
  parameters: Type.Object({ deleteWithoutExport: Type.Optional(Type.Boolean()) }),
  async execute({ tx, organization }, { deleteWithoutExport }) {
    if (!organization.parent_id) {
      throw failedPrecondition(
        `organization ${organization.id} is not a sub-organization; only sub-organizations can be deleted`,
        "INVALID_ACTIVITY_CALLER",
      );
    }
    const wallets = await tx.query<{ id: string; exported: boolean; imported: boolean }>(
      "SELECT id, exported, imported FROM wallets WHERE organization_id = $1",
      [organization.id],
    );
    assertSafeToDelete(wallets, `sub-organization ${organization.id}: wallet(s)`, deleteWithoutExport);
    const keys = await tx.query<{ id: string; exported: boolean; imported: boolean }>(
      "SELECT id, exported, imported FROM private_keys WHERE organization_id = $1",
      [organization.id],
    );
    assertSafeToDelete(keys, `sub-organization ${organization.id}: private key(s)`, deleteWithoutExport);
    await tx.query("DELETE FROM organizations WHERE id = $1", [organization.id]);
    return { subOrganizationUuid: organization.id };
  },
});
