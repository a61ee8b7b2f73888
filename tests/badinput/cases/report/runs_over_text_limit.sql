-- One cell whose 17 runs hold 4 MiB of result text each (68 MiB > the 64 MiB a report reads of
-- one cell; parsed JSON takes ~10x its text). Schema 1, as in guest_data/hostile_store.sql.
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version', '1');
CREATE TABLE experiments(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL,
  host_topology TEXT, versions TEXT, created TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE cells(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  cell_key TEXT NOT NULL, config_key TEXT NOT NULL, factors TEXT NOT NULL, label TEXT NOT NULL,
  position INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending', error TEXT,
  mismatches TEXT, boot_id INTEGER, UNIQUE(experiment_id, cell_key));
CREATE TABLE boots(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  config_key TEXT NOT NULL, order_seed TEXT NOT NULL, intended_topology TEXT,
  seen_topology TEXT, mismatches TEXT, timings TEXT, versions TEXT, started TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER NOT NULL, benchmark TEXT NOT NULL, repetition INTEGER NOT NULL,
  params TEXT NOT NULL, samples TEXT, summary TEXT, result TEXT NOT NULL, value REAL,
  unit TEXT, duration_ms REAL, started TEXT NOT NULL,
  UNIQUE(cell_id, benchmark_index, repetition));
CREATE TABLE failures(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER, repetition INTEGER, error TEXT NOT NULL, at TEXT NOT NULL);
INSERT INTO experiments VALUES(1, 'big', '{"benchmarks":[{"name":"sqrt"}]}', NULL, '[]', 'now', 'now');
INSERT INTO cells VALUES(1, 1, 'k1', 'c1', '{}', 'only cell', 0, 'done', '', '[]', NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 17)
INSERT INTO runs SELECT i, 1, NULL, 0, 'sqrt', i, '{}', NULL, NULL,
  '{"benchmark":"sqrt","metric":"time","unit":"s","lower_is_better":true,"samples":[1],"summary":{"n":1,"median":1},"details":{"x":"' || replace(hex(zeroblob(2097100)), '0', 'a') || '"}}',
  1, 's', 1, 'now' FROM n;
