-- store schema 1
-- One cell holding 100 001 runs (redteam wave 2): refused by one COUNT before a row is parsed
-- (500 000 such runs took 1.09 GB and 10 s to report). Schema 1, as in guest_data/hostile_store.sql.
INSERT INTO experiments VALUES(1, 'big', '{"benchmarks":[{"name":"sqrt"}]}', NULL, '[]', 'now', 'now');
INSERT INTO cells VALUES(1, 1, 'k1', 'c1', '{}', 'only cell', 0, 'done', '', '[]', NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100001)
INSERT INTO runs SELECT i, 1, NULL, 0, 'sqrt', i, '{}', NULL, NULL,
  '{"benchmark":"sqrt","metric":"time","unit":"s","lower_is_better":true,"samples":[1],"summary":{"n":1,"median":1}}',
  1, 's', 1, 'now' FROM n;
