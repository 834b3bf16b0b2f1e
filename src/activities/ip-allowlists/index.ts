import type { ActivityDefinition } from "../definition.js";
import { removeIpAllowlist } from "./remove-ip-allowlist.js";
import { setIpAllowlist } from "./set-ip-allowlist.js";

export const ipAllowlistActivities: ActivityDefinition[] = [setIpAllowlist, removeIpAllowlist];
