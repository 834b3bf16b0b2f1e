import type { ActivityDefinition } from "../definition.js";
import { createInvitations } from "./create-invitations.js";
import { deleteInvitation } from "./delete-invitation.js";

export const invitationActivities: ActivityDefinition[] = [createInvitations, deleteInvitation];
