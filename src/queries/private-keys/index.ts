import type { QueryDefinition } from "../definition.js";
import { getPrivateKey } from "./get-private-key.js";
import { listPrivateKeyTags } from "./list-private-key-tags.js";
import { listPrivateKeys } from "./list-private-keys.js";

export const privateKeyQueries: QueryDefinition[] = [getPrivateKey, listPrivateKeys, listPrivateKeyTags];
