import { Type } from "@sinclair/typebox";
import { ApiTimestamp } from "./timestamp.js";

/** A user tag or private key tag as the API lists it. */
export const TagRecord = Type.Object({
  tagId: Type.String(),
  tagName: Type.String(),
  tagType: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});
