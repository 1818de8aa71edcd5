/** What the rooms API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

export const roomMemberSchema = z.object({ id, handle: z.string(), name: z.string(), color: z.string() });

export const roomSummarySchema = z.object({
  id,
  name: z.string(),
  subject: z.string(),
  createdAt: isoDate,
  members: z.array(roomMemberSchema),
});
export type RoomSummary = z.infer<typeof roomSummarySchema>;

export const roomListSchema = z.object({ rooms: z.array(roomSummarySchema) });

export const roomCreatedSchema = z.object({ room: z.object({ id, name: z.string() }) });

export const roomDetailSchema = z.object({
  room: z.extend(roomSummarySchema, {
    messages: z.array(
      z.object({
        id,
        body: z.string(),
        createdAt: isoDate,
        /** Null when the viewer may not open the run. */
        runId: z.nullable(id),
        fromAgent: z.nullable(z.string()),
        fromUser: z.nullable(z.string()),
      }),
    ),
  }),
});
export type RoomDetail = z.infer<typeof roomDetailSchema>["room"];

export const roomPostSchema = z.object({
  messageId: id,
  runIds: z.array(id),
  paused: z.array(z.string()),
  notice: z.optional(z.string()),
});
