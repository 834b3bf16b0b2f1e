import type { Domain } from "../../operations/domain.js";
import { createInvitations } from "./submit/create-invitations.js";
import { deleteInvitation } from "./submit/delete-invitation.js";

export const invitationsDomain: Domain = {
  name: "invitations",
  activities: [createInvitations, deleteInvitation],
  queries: [],
};
