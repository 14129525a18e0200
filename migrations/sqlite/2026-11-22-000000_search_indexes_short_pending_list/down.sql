-- PostgreSQL's counterpart shortens the pending list of its GIN trigram indexes. SQLite's FTS5
-- index has no such list: nothing to change. The migration exists so that both backends report
-- the same schema version.
SELECT 1;
