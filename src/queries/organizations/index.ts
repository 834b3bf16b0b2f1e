import type { QueryDefinition } from "../definition.js";
import { getOrganization } from "./get-organization.js";
import { getOrganizationConfigs } from "./get-organization-configs.js";
import { listSuborgs } from "./list-suborgs.js";
import { listVerifiedSuborgs } from "./list-verified-suborgs.js";
import { getWhoami } from "./whoami.js";

export const organizationQueries: QueryDefinition[] = [getWhoami, getOrganization, getOrganizationConfigs, listSuborgs, listVerifiedSuborgs];
