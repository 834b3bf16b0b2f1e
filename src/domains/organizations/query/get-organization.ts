import { Type } from "@sinclair/typebox";
import { rootQuorum } from "../organizations.js";
import { toApiTimestamp } from "../../../schema/timestamp.js";
import { loadUserRecords } from "../../users/user-records.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../pipeline/query-definition.js";

interface InvitationRow {
  id: string;
  receiver_user_name: string;
  receiver_email: string;
  receiver_user_tags: string[];
  access_type: string;
  status: string;
  sender_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export const getOrganization = defineQuery({
  operation: "get_organization",
  sdkMethod: "getOrganization",
  summary: "The organization with its users, invitations, tags, root quorum and features",
  body: Type.Object({ organizationId: Id() }),
  async execute({ organization, services }) {
    const db = services.db;
    const users = await loadUserRecords(db, organization.id);
    const invitations = await db.query<InvitationRow>("SELECT * FROM invitations WHERE organization_id = $1 ORDER BY created_at, id", [
      organization.id,
    ]);
    const tags = await db.query<{ id: string; name: string; created_at: Date; updated_at: Date }>(
      "SELECT id, name, created_at, updated_at FROM user_tags WHERE organization_id = $1 ORDER BY created_at, id",
      [organization.id],
    );
    return {
      organizationData: {
        organizationId: organization.id,
        name: organization.name,
        users,
        policies: [],
        privateKeys: [],
        invitations: invitations.map((i) => ({
          invitationId: i.id,
          receiverUserName: i.receiver_user_name,
          receiverEmail: i.receiver_email,
          receiverUserTags: i.receiver_user_tags,
          accessType: i.access_type,
          status: i.status,
          createdAt: toApiTimestamp(i.created_at),
          updatedAt: toApiTimestamp(i.updated_at),
          senderUserId: i.sender_user_id,
        })),
        tags: tags.map((t) => ({
          tagId: t.id,
          tagName: t.name,
          tagType: "TAG_TYPE_USER",
          createdAt: toApiTimestamp(t.created_at),
          updatedAt: toApiTimestamp(t.updated_at),
        })),
        rootQuorum: await rootQuorum(db, organization),
        features: organization.features,
        wallets: [],
        smartContractInterfaceReferences: [],
      },
    };
  },
});
