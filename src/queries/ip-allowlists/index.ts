import type { QueryDefinition } from "../definition.js";
import { getIpAllowlist } from "./get-ip-allowlist.js";

export const ipAllowlistQueries: QueryDefinition[] = [getIpAllowlist];
