-- Run on the main job's real store (tests/orchestrator/report/data/main_job_store.sql, schema 2):
-- markup in a config key, a layout field of the wrong type and out of range, a seen topology that
-- is not one.
UPDATE cells SET config_key = '{"expose":"<script>alert(1)</script>"}' WHERE id = 1;
UPDATE cells SET layout = '{"guest.l3_groups":"x","placement.explicit":[1,2]}' WHERE id = 2;
UPDATE cells SET layout = '{"guest.l3_groups":100000,"guest.cores_per_group":100000}' WHERE id = 3;
UPDATE boots SET seen_topology = '{"cpus":"<img src=x onerror=alert(1)>"}' WHERE id = 3;
