-- store schema 1
-- A results store as an older or hostile build could leave it (issue 12, class 1): schema 1 of
-- orchestrator/results/store/result_store.cpp, one good run, and stored values of every wrong kind.
-- `topolab report` must list the bad runs by id and report the rest, in every format.

INSERT INTO experiments VALUES(1, 'hostile',
  '{"benchmarks":[{"name":"sqrt"},{"name":7},"x"],"baseline":{"expose":"flat"}}',
  '{"cpus":"not an array"}', '[]', 'now', 'now');
-- Cell labels and errors with escape sequences, bytes that are not UTF-8 and a formula.
INSERT INTO cells VALUES(1, 1, 'k1', 'c1', '{"expose":"flat"}',
  CAST(X'1b5b33316d726564ff' AS TEXT), 0, 'done', '', '[]', 1);
INSERT INTO cells VALUES(2, 1, 'k2', 'c2', '[1,2]', '=HYPERLINK("http://evil")', 1, 'failed',
  CAST(X'6775657374207361696420611b5d303b7469746c6507' AS TEXT), '"not an array"', 1);
-- Factors that are not JSON at all.
INSERT INTO cells VALUES(3, 1, 'k3', 'c3', '{{ not json', 'unreadable factors', 2, 'pending', NULL,
  NULL, NULL);
INSERT INTO boots VALUES(1, 1, 'c1', 'not a number', NULL, '{"cpus":[{"id":"x"}]}', '{}',
  '{}', '{}', 'now');

-- Run 1: a good result.
INSERT INTO runs VALUES(1, 1, 1, 0, 'sqrt', 1, '{}', NULL, NULL,
  '{"benchmark":"sqrt","params":{},"metric":"time","unit":"s","lower_is_better":true,
    "samples":[1.5],"summary":{"n":1,"min":1.5,"median":1.5,"mean":1.5,"max":1.5,"cv":0},
    "environment":{},"details":{}}', 1.5, 's', 1, 'now');
-- Run 2: the original abort, a number where the unit string belongs.
INSERT INTO runs VALUES(2, 1, 1, 0, 'sqrt', 2, '{}', NULL, NULL,
  '{"benchmark":"sqrt","params":{},"metric":"time","unit":5,"lower_is_better":true,
    "samples":[1],"summary":{"n":1,"median":1},"environment":{},"details":{}}', 1, NULL, 1,
  'now');
-- Run 3: lower_is_better as a string.
INSERT INTO runs VALUES(3, 1, 1, 0, 'sqrt', 3, '{}', NULL, NULL,
  '{"benchmark":"sqrt","metric":"time","unit":"s","lower_is_better":"yes","samples":[],
    "summary":{"n":0}}', NULL, 's', 1, 'now');
-- Run 4: not JSON at all.
INSERT INTO runs VALUES(4, 1, 1, 0, 'sqrt', 4, '{}', NULL, NULL, '{{{ not json', NULL, 's', 1,
  'now');
-- Run 5: 50 000 nested arrays (a stack overflow for any recursive reader).
INSERT INTO runs VALUES(5, 1, 1, 0, 'sqrt', 5, '{}', NULL, NULL,
  replace(hex(zeroblob(50000)), '00', '['), NULL, 's', 1, 'now');
-- Run 6: a core-to-core result naming 12 000 CPUs (an n x n matrix of 1.1 GB).
INSERT INTO runs SELECT 6, 1, 1, 1, 'c2c-latency', 1, '{}', NULL, NULL,
  '{"benchmark":"c2c-latency","metric":"one_way_latency","unit":"ns","lower_is_better":true,
    "samples":[1],"summary":{"n":1,"median":1},"environment":{},"details":{"pairs":' ||
  (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
   SELECT json_group_array(json_object('a', 0, 'b', i, 'median_ns', 50)) FROM n) || '}}',
  1, 'ns', 1, 'now';
-- Run 7: a result that is a JSON array; run 8: a sample that is infinite (1e999).
INSERT INTO runs VALUES(7, 2, 1, 0, 'sqrt', 1, '{}', NULL, NULL, '[1,2,3]', NULL, 's', 1, 'now');
INSERT INTO runs VALUES(8, 2, 1, 0, 'sqrt', 2, '{}', NULL, NULL,
  '{"benchmark":"sqrt","metric":"time","unit":"s","lower_is_better":true,"samples":[1e999],
    "summary":{"n":1}}', NULL, 's', 1, 'now');
INSERT INTO failures VALUES(1, 2, 1, 0, 1, CAST(X'1b5b324a' AS TEXT), 'now');
