import type { ActivityDefinition } from "../definition.js";
import { createSubOrganization } from "./create-sub-organization.js";
import { deleteSubOrganization } from "./delete-sub-organization.js";
import { updateOrganizationName } from "./update-organization-name.js";
import { updateRootQuorum } from "./update-root-quorum.js";

export const organizationActivities: ActivityDefinition[] = [createSubOrganization, deleteSubOrganization, updateRootQuorum, updateOrganizationName];
