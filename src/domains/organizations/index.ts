import type { Domain } from "../../operations/domain.js";
import { createSubOrganization } from "./submit/create-sub-organization.js";
import { deleteSubOrganization } from "./submit/delete-sub-organization.js";
import { getOrganization } from "./query/get-organization.js";
import { getOrganizationConfigs } from "./query/get-organization-configs.js";
import { getWhoami } from "./query/whoami.js";
import { listSuborgs } from "./query/list-suborgs.js";
import { listVerifiedSuborgs } from "./query/list-verified-suborgs.js";
import { removeOrganizationFeature } from "./submit/remove-organization-feature.js";
import { setOrganizationFeature } from "./submit/set-organization-feature.js";
import { updateOrganizationName } from "./submit/update-organization-name.js";
import { updateRootQuorum } from "./submit/update-root-quorum.js";

export const organizationsDomain: Domain = {
  name: "organizations",
  activities: [
    createSubOrganization,
    deleteSubOrganization,
    updateRootQuorum,
    updateOrganizationName,
    setOrganizationFeature,
    removeOrganizationFeature,
  ],
  queries: [getWhoami, getOrganization, getOrganizationConfigs, listSuborgs, listVerifiedSuborgs],
};
