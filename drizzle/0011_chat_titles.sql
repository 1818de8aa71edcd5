ALTER TABLE "sessions" ADD COLUMN "title_chosen" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- hand-written: a chat that already has messages is named after its first one.
UPDATE "sessions" SET "title" = left(regexp_replace(btrim(m."content"), '\s+', ' ', 'g'), 60), "title_chosen" = true
FROM (SELECT DISTINCT ON ("session_id") "session_id", "content" FROM "messages" WHERE "role" = 'user' ORDER BY "session_id", "created_at") AS m
WHERE m."session_id" = "sessions"."id" AND btrim(m."content") <> '';
