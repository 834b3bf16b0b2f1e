import type { Domain } from "../../operations/domain.js";
import { getIpAllowlist } from "./query/get-ip-allowlist.js";
import { removeIpAllowlist } from "./submit/remove-ip-allowlist.js";
import { setIpAllowlist } from "./submit/set-ip-allowlist.js";

export const ipAllowlistsDomain: Domain = {
  name: "ip-allowlists",
  activities: [setIpAllowlist, removeIpAllowlist],
  queries: [getIpAllowlist],
};
