import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { VelocityControlAggregation, VelocityControlDataSource } from "../../../records/velocity-control.js";
import { Name } from "../../../schema/common.js";
import { checkVelocityControl, insertVelocityControl, type NewVelocityControl } from "../velocity-controls.js";

export const createVelocityControl = defineActivity({
  operation: "create_velocity_control",
  type: "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
  intentKey: "createVelocityControlIntent",
  resultKey: "createVelocityControlResult",
  result: Type.Object({ velocityControlId: Type.String() }),
  sdkMethod: "createVelocityControl",
  summary:
    "Create a velocity control: an aggregate over executed activities or asset transfers that policies read as controls.<identifier>",
  resource: "POLICY",
  action: "CREATE",
  parameters: Type.Object({
    name: Name("Human-readable name for the velocity control"),
    dataSource: VelocityControlDataSource,
    aggregation: VelocityControlAggregation,
    identifier: Type.String({ minLength: 1, maxLength: 64, description: "Policies read it as controls.<identifier>" }),
  }),
  validate: async (_ctx, control) => checkVelocityControl(control),
  async execute({ tx, organization, now, validated }, params) {
    const control = (validated as NewVelocityControl | undefined) ?? checkVelocityControl(params);
    return { velocityControlId: await insertVelocityControl(tx, organization.id, control, now) };
  },
});
