-- Visiting agents (issue 29, DESIGN §4c, B-300…B-302): a visitor's placement in a room says where
-- its readable history starts (`history_floor`: the placement's seq, or the sponsor's own floor when
-- the sponsor shared the earlier history — 0, people read a chat's whole history) and who wakes it
-- (`wake`). Null for everyone else, and for visitors placed before this: their floor is their window.
ALTER TABLE "participations" ADD COLUMN "history_floor" INTEGER;
ALTER TABLE "participations" ADD COLUMN "wake" TEXT;
