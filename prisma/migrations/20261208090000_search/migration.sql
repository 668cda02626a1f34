-- Message search (DESIGN §4d, docs/search.md). Kept by the database in the message's own
-- transaction: the vector is a generated column, so a send is findable when it returns and a
-- redaction (body set to NULL) empties it at once. PGlite loads the same two extensions
-- (packages/db/src/open.ts), so this one migration serves both engines.
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- Case and accents never matter. unaccent() is only STABLE (its dictionary could change); named
-- with its dictionary it is safe to declare IMMUTABLE, which a generated column needs.
CREATE OR REPLACE FUNCTION maity_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, t)) $$;

-- A word (or a phrase's words) as one quoted tsquery operand, folded like the index: the hub
-- builds every query from these, so no text of a search is ever parsed as tsquery syntax. The
-- space before the closing quote keeps a word that folds to nothing an empty operand, never ''.
CREATE OR REPLACE FUNCTION maity_lexeme(w text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT '''' || replace(replace(maity_fold(w), '\', '\\'), '''', '''''') || ' ''' $$;

-- Text in a script written without spaces between words (Han, kana, Hangul, Thai, Lao, Khmer,
-- Myanmar, Tibetan): the full-text parser keeps a sentence as one word, so it is matched by
-- substring, with a trigram index over these messages only (others pay nothing for it).
CREATE OR REPLACE FUNCTION maity_unspaced(t text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT t ~ '[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]' $$;

-- The words: unstemmed (weight A: exact words, prefixes and phrases) and English stems (weight
-- D: "deciding" finds "decided"). The hub's own lines (from 'system') and redacted messages
-- carry none.
ALTER TABLE "events" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (
  CASE WHEN "kind" = 'message' AND "body" IS NOT NULL AND "from_id" <> 'system' THEN
    setweight(to_tsvector('simple'::regconfig, maity_fold("body")), 'A')
      || to_tsvector('english'::regconfig, maity_fold("body"))
  END
) STORED;

-- fastupdate off: no pending list. PGlite has no autovacuum to merge one, so every search would
-- scan up to 4 MB of unmerged entries; a send pays its ~30 index entries at once instead.
CREATE INDEX "events_search_vector_idx" ON "events" USING gin ("search_vector") WITH (fastupdate = off)
  WHERE "search_vector" IS NOT NULL;

CREATE INDEX "events_search_unspaced_idx" ON "events" USING gin ("body" gin_trgm_ops) WITH (fastupdate = off)
  WHERE "kind" = 'message' AND maity_unspaced("body");
