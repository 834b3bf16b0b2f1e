import type { Domain } from "../../operations/domain.js";
import { getVelocityControl } from "./query/get-velocity-control.js";
import { listVelocityControls } from "./query/list-velocity-controls.js";
import { createVelocityControl } from "./submit/create-velocity-control.js";
import { deleteVelocityControl } from "./submit/delete-velocity-control.js";

/** Velocity controls: named aggregates (spend and rate limits) that policies read as controls.<identifier> (src/policy/velocity/). */
export const velocityControlsDomain: Domain = {
  name: "velocity-controls",
  activities: [createVelocityControl, deleteVelocityControl],
  queries: [getVelocityControl, listVelocityControls],
};
