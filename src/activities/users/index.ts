import type { ActivityDefinition } from "../definition.js";
import { createUserTag } from "./create-user-tag.js";
import { createUsers } from "./create-users.js";
import { deleteUserTags } from "./delete-user-tags.js";
import { deleteUsers } from "./delete-users.js";
import { updateUser } from "./update-user.js";
import { updateUserEmail } from "./update-user-email.js";
import { updateUserName } from "./update-user-name.js";
import { updateUserPhoneNumber } from "./update-user-phone-number.js";
import { updateUserTag } from "./update-user-tag.js";

export const userActivities: ActivityDefinition[] = [createUsers, deleteUsers, updateUser, updateUserName, updateUserEmail, updateUserPhoneNumber, createUserTag, updateUserTag, deleteUserTags];
