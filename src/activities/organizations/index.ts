import type { ActivityDefinition } from "../definition.js";
import { createSubOrganization } from "./create-sub-organization.js";
import { deleteSubOrganization } from "./delete-sub-organization.js";
import { removeOrganizationFeature } from "./remove-organization-feature.js";
import { setOrganizationFeature } from "./set-organization-feature.js";
import { updateOrganizationName } from "./update-organization-name.js";
import { updateRootQuorum } from "./update-root-quorum.js";

export const organizationActivities: ActivityDefinition[] = [createSubOrganization, deleteSubOrganization, updateRootQuorum, updateOrganizationName, setOrganizationFeature, removeOrganizationFeature];
