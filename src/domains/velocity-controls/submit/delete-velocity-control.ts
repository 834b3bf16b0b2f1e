import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { requireVelocityControl } from "../../../records/velocity-control.js";
import { Id } from "../../../schema/common.js";
import { mustExist } from "../../references.js";

export const deleteVelocityControl = defineActivity({
  operation: "delete_velocity_control",
  type: "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
  intentKey: "deleteVelocityControlIntent",
  resultKey: "deleteVelocityControlResult",
  result: Type.Object({ velocityControlId: Type.String() }),
  sdkMethod: "deleteVelocityControl",
  summary: "Delete a velocity control and its aggregates; policies that name it then evaluate to OUTCOME_ERROR (a deny among them denies)",
  resource: "POLICY",
  action: "DELETE",
  parameters: Type.Object({ velocityControlId: Id() }),
  async validate({ db, organization }, { velocityControlId }) {
    await mustExist(requireVelocityControl(db, organization.id, velocityControlId));
  },
  async execute({ tx, organization }, { velocityControlId }) {
    await requireVelocityControl(tx, organization.id, velocityControlId);
    await tx.query("DELETE FROM velocity_controls WHERE id = $1", [velocityControlId]);
    return { velocityControlId };
  },
});
