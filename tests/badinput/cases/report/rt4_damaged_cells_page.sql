-- Redteam wave 4: a damaged file (made here by pointing the cells table at the empty failures
-- b-tree; a flipped page header does the same). Reads returned no cells and no error: `report`
-- printed an experiment without cells, exit 0.
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'failures')
  WHERE name = 'cells';
