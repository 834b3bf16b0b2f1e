import { Type } from "@sinclair/typebox";
import { loadActivityRecord, ActivityResponse } from "../../../records/activity.js";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getActivity = defineQuery({
  operation: "get_activity",
  sdkMethod: "getActivity",
  summary: "One activity, with its votes, intent and result",
  body: Type.Object({ organizationId: Id(), activityId: Id() }),
  result: ActivityResponse,
  async execute({ organization, principal, services }, { activityId }) {
    const activity = await loadActivityRecord(services.db, "id", activityId, principal.user.id);
    if (!activity || activity.organizationId !== organization.id) {
      throw notFound(`no activity ${JSON.stringify(activityId)} in organization ${organization.id}`);
    }
    return { activity };
  },
});
