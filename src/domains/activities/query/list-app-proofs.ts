import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { AppProofRecord } from "../../../records/activity.js";

export const listAppProofs = defineQuery({
  operation: "list_app_proofs",
  sdkMethod: "getAppProofs",
  summary: "The app proofs an activity generated (generateAppProofs): policy outcome and address derivations, signed by the signer key",
  body: Type.Object({ organizationId: Id(), activityId: Id() }),
  result: Type.Object({ appProofs: Type.Array(AppProofRecord) }),
  async execute({ organization, services }, { activityId }) {
    const [row] = await services.db.query<{ app_proofs: unknown[] }>(
      "SELECT app_proofs FROM activities WHERE id = $1 AND organization_id = $2",
      [activityId, organization.id],
    );
    if (!row)
      throw notFound(`activityId: no activity ${JSON.stringify(activityId)} in organization ${organization.id}`, "ACTIVITY_NOT_FOUND");
    return { appProofs: row.app_proofs };
  },
});
