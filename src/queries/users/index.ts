import type { QueryDefinition } from "../definition.js";
import { getUser } from "./get-user.js";
import { listUserTags } from "./list-user-tags.js";
import { listUsers } from "./list-users.js";

export const userQueries: QueryDefinition[] = [getUser, listUsers, listUserTags];
