-- Redteam wave 4: a view stands in for the runs table and never ends (a recursive CTE without
-- a bound): `report` hung in its first COUNT over the runs.
DROP TABLE runs;
CREATE VIEW runs AS
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
  SELECT x AS id, 1 AS cell_id, NULL AS boot_id, 0 AS benchmark_index, 'sqrt' AS benchmark,
         x AS repetition, '{}' AS params, NULL AS samples, NULL AS summary, '{}' AS result,
         1.0 AS value, 's' AS unit, 1.0 AS duration_ms, '' AS started, '' AS host FROM c;
