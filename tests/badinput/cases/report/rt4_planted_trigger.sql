-- Redteam wave 4: a trigger planted in a store. SQLite ran it on topolab's INSERT of a result
-- (`run` resuming the store): it rewrote the new result's value and wrote its own row.
CREATE TRIGGER rt4_rewrite AFTER INSERT ON runs BEGIN
  UPDATE runs SET value = 1e-9 WHERE id = NEW.id;
  INSERT OR REPLACE INTO meta VALUES('rt4', 'the planted trigger ran');
END;
