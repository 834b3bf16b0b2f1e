import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { requireVelocityControl, velocityControlRecord, VelocityControlRecord } from "../../../records/velocity-control.js";
import { Id } from "../../../schema/common.js";

export const getVelocityControl = defineQuery({
  operation: "get_velocity_control",
  sdkMethod: "getVelocityControl",
  summary: "One velocity control",
  body: Type.Object({ organizationId: Id(), velocityControlId: Id() }),
  result: Type.Object({ velocityControl: VelocityControlRecord }),
  async execute({ organization, services }, { velocityControlId }) {
    return { velocityControl: velocityControlRecord(await requireVelocityControl(services.db, organization.id, velocityControlId)) };
  },
});
