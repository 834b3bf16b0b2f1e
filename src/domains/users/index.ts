import type { Domain } from "../../operations/domain.js";
import { createApiOnlyUsers } from "./submit/create-api-only-users.js";
import { createUserTag } from "./submit/create-user-tag.js";
import { createUsers } from "./submit/create-users.js";
import { deleteUserTags } from "./submit/delete-user-tags.js";
import { deleteUsers } from "./submit/delete-users.js";
import { getUser } from "./query/get-user.js";
import { listUserTags } from "./query/list-user-tags.js";
import { listUsers } from "./query/list-users.js";
import { updateUser } from "./submit/update-user.js";
import { updateUserEmail } from "./submit/update-user-email.js";
import { updateUserName } from "./submit/update-user-name.js";
import { updateUserPhoneNumber } from "./submit/update-user-phone-number.js";
import { updateUserTag } from "./submit/update-user-tag.js";

export const usersDomain: Domain = {
  name: "users",
  activities: [
    createUsers,
    createApiOnlyUsers,
    deleteUsers,
    updateUser,
    updateUserName,
    updateUserEmail,
    updateUserPhoneNumber,
    createUserTag,
    updateUserTag,
    deleteUserTags,
  ],
  queries: [getUser, listUsers, listUserTags],
};
