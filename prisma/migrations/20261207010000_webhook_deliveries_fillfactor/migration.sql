-- A claim (locked_until, attempts) changes no indexed column: with room left on the row's page it is
-- a HOT update, which writes no index entry. Pages filled to half leave that room (new rows only).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);
