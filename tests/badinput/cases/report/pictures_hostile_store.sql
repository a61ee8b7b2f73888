-- Run on the main job's real store (tests/orchestrator/results/report/data/main_job_store.sql, schema 2):
-- markup in a config key, a layout field of the wrong type and out of range, a seen topology that
-- is not one; and (the boots.plan column of schema 5, issue 28: what the pictures draw) a stored
-- plan whose vCPUs are markup, one whose vCPU id is out of range and one naming CPU 9999999.
UPDATE cells SET config_key = '{"expose":"<script>alert(1)</script>"}' WHERE id = 1;
UPDATE cells SET layout = '{"guest.l3_groups":"x","placement.explicit":[1,2]}' WHERE id = 2;
UPDATE cells SET layout = '{"guest.l3_groups":100000,"guest.cores_per_group":100000}' WHERE id = 3;
UPDATE boots SET seen_topology = '{"cpus":"<img src=x onerror=alert(1)>"}' WHERE id = 3;
ALTER TABLE boots ADD COLUMN plan TEXT;
UPDATE boots SET plan = '{"vcpus":"<script>alert(2)</script>","pinned":true}' WHERE id = 1;
UPDATE boots SET plan = '{"vcpus":[{"vcpu":100000,"host_cpus":"0","group":0,"core":0,"thread":0}],"pinned":true,"emulator_cpus":""}' WHERE id = 2;
UPDATE boots SET plan = '{"vcpus":[{"vcpu":0,"host_cpus":"9999999","group":0,"core":0,"thread":0}],"pinned":true,"emulator_cpus":""}' WHERE id = 3;
