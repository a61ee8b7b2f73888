-- store schema 1
-- One cell whose 17 runs hold 4 MiB of result text each (68 MiB > the 64 MiB a report reads of
-- one cell; parsed JSON takes ~10x its text). Schema 1, as in guest_data/hostile_store.sql.
INSERT INTO experiments VALUES(1, 'big', '{"benchmarks":[{"name":"sqrt"}]}', NULL, '[]', 'now', 'now');
INSERT INTO cells VALUES(1, 1, 'k1', 'c1', '{}', 'only cell', 0, 'done', '', '[]', NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 17)
INSERT INTO runs SELECT i, 1, NULL, 0, 'sqrt', i, '{}', NULL, NULL,
  '{"benchmark":"sqrt","metric":"time","unit":"s","lower_is_better":true,"samples":[1],"summary":{"n":1,"median":1},"details":{"x":"' || replace(hex(zeroblob(2097100)), '0', 'a') || '"}}',
  1, 's', 1, 'now' FROM n;
