-- A schema-3 guest store as `topolab run` records it since issue 18 (context columns), two
-- cells: expose=flat (matched, one boot retry) and expose=sockets (the guest saw 1 package where
-- 2 were intended). Its boots ran under TCG; tests turn it into a KVM store with replace().
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version','3');
CREATE TABLE experiments(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL,
  host_topology TEXT, versions TEXT, created TEXT NOT NULL, updated TEXT NOT NULL,
  context TEXT);
CREATE TABLE cells(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  cell_key TEXT NOT NULL, config_key TEXT NOT NULL, factors TEXT NOT NULL, label TEXT NOT NULL,
  position INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending', error TEXT,
  mismatches TEXT, boot_id INTEGER, layout TEXT, UNIQUE(experiment_id, cell_key));
CREATE TABLE boots(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  config_key TEXT NOT NULL, order_seed TEXT NOT NULL, intended_topology TEXT,
  seen_topology TEXT, mismatches TEXT, timings TEXT, versions TEXT, started TEXT NOT NULL,
  context TEXT);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER NOT NULL, benchmark TEXT NOT NULL, repetition INTEGER NOT NULL,
  params TEXT NOT NULL, samples TEXT, summary TEXT, result TEXT NOT NULL, value REAL,
  unit TEXT, duration_ms REAL, started TEXT NOT NULL,
  UNIQUE(cell_id, benchmark_index, repetition));
CREATE TABLE failures(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER, repetition INTEGER, error TEXT NOT NULL, at TEXT NOT NULL);
INSERT INTO experiments VALUES(1,'ctx','{"backend":"guest","baseline":{"expose":"flat"},"benchmarks":[{"name":"sqrt","params":{"n":1000}}],"name":"ctx","repetitions":3,"seed":1}','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":16384}],"model":"AMD EPYC 7451 24-Core Processor","numa_nodes":[{"cpus":"0-1","hugepages":[],"id":0,"memory_kib":2000000}],"packages":[{"cpus":"0-1","id":0}],"source":"libvirt:qemu:///system","vendor":"AuthenticAMD"}','{"backend":"guest","guest_image":"abc123","guest_kernel":"6.1.0-guest","topolab":"0.1.0"}','2026-11-30T14:00:00Z','2026-11-30T14:05:00Z','{"accel_requested":"auto","backend":"guest","connect_uri":"qemu:///system"}');
INSERT INTO cells VALUES(1,1,'{"expose":"flat"}','{"expose":"flat"}','{"expose":"flat"}','expose=flat',0,'done','','[]',1,'null');
INSERT INTO cells VALUES(2,1,'{"expose":"sockets"}','{"expose":"sockets"}','{"expose":"sockets"}','expose=sockets',1,'done','','[{"intended":"2","level":"packages","seen":"1"}]',2,'null');
INSERT INTO boots VALUES(1,1,'{"expose":"flat"}','1','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":16384}],"model":"AMD EPYC-Rome Processor","numa_nodes":[{"cpus":"0-1","hugepages":[],"id":0,"memory_kib":2000000}],"packages":[{"cpus":"0-1","id":0}],"source":"sysfs:/","vendor":"AuthenticAMD"}','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":16384}],"model":"AMD EPYC-Rome Processor","numa_nodes":[{"cpus":"0-1","hugepages":[],"id":0,"memory_kib":2000000}],"packages":[{"cpus":"0-1","id":0}],"source":"sysfs:/","vendor":"AuthenticAMD"}','[]','{"boot_attempts":2,"boot_retries":[{"attempt":1,"console":"console.attempt-1.log","reason":"silent console"}],"hello_ms":900}','{"accel_reason":"probe timed out","agent":"0.1.0","domain":"topolab-x","guest_cpu_model":"AMD EPYC-Rome Processor","guest_kernel":"Linux 6.1.0-guest","kvm":false,"run_id":"r1"}','2026-11-30T14:00:01Z','{"accel_reason":"nested KVM hangs here: probe timed out","accelerator":"tcg","cpu_model":{"cache_mode":"passthrough","mode":"custom","model":"EPYC-Rome","reason":"topoext needs an AMD model"}}');
INSERT INTO boots VALUES(2,1,'{"expose":"sockets"}','2','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":1,"id":1,"l3":1,"node":0,"online":true,"package":1,"siblings":"1"}],"dies":[{"cpus":"0","die_id":0,"id":0,"package":0},{"cpus":"1","die_id":0,"id":1,"package":1}],"isolated":"","l3_domains":[{"cpus":"0","id":0,"size_kib":16384},{"cpus":"1","id":1,"size_kib":16384}],"model":"AMD EPYC-Rome Processor","numa_nodes":[{"cpus":"0-1","hugepages":[],"id":0,"memory_kib":2000000}],"packages":[{"cpus":"0","id":0},{"cpus":"1","id":1}],"source":"intended","vendor":"AuthenticAMD"}','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":16384}],"model":"AMD EPYC-Rome Processor","numa_nodes":[{"cpus":"0-1","hugepages":[],"id":0,"memory_kib":2000000}],"packages":[{"cpus":"0-1","id":0}],"source":"sysfs:/","vendor":"AuthenticAMD"}','[{"intended":"2","level":"packages","seen":"1"}]','{"boot_attempts":1,"boot_retries":[],"hello_ms":850}','{"accel_reason":"probe timed out","agent":"0.1.0","domain":"topolab-x","guest_cpu_model":"AMD EPYC-Rome Processor","guest_kernel":"Linux 6.1.0-guest","kvm":false,"run_id":"r1"}','2026-11-30T14:02:00Z','{"accel_reason":"nested KVM hangs here: probe timed out","accelerator":"tcg","cpu_model":{"cache_mode":"passthrough","mode":"custom","model":"EPYC-Rome","reason":"topoext needs an AMD model"}}');
INSERT INTO runs VALUES(1,1,1,0,'sqrt',1,'{"n":1000}','[1.0]','{"cv":0.0,"max":1.0,"mean":1.0,"median":1.0,"min":1.0,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[1.0],"summary":{"cv":0.0,"max":1.0,"mean":1.0,"median":1.0,"min":1.0,"n":1},"unit":"s"}',1.0,'s',5.0,'2026-11-30T14:01:00Z');
INSERT INTO runs VALUES(2,1,1,0,'sqrt',2,'{"n":1000}','[1.02]','{"cv":0.0,"max":1.02,"mean":1.02,"median":1.02,"min":1.02,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[1.02],"summary":{"cv":0.0,"max":1.02,"mean":1.02,"median":1.02,"min":1.02,"n":1},"unit":"s"}',1.02,'s',5.0,'2026-11-30T14:01:00Z');
INSERT INTO runs VALUES(3,1,1,0,'sqrt',3,'{"n":1000}','[0.98]','{"cv":0.0,"max":0.98,"mean":0.98,"median":0.98,"min":0.98,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[0.98],"summary":{"cv":0.0,"max":0.98,"mean":0.98,"median":0.98,"min":0.98,"n":1},"unit":"s"}',0.98,'s',5.0,'2026-11-30T14:01:00Z');
INSERT INTO runs VALUES(4,2,2,0,'sqrt',1,'{"n":1000}','[1.1]','{"cv":0.0,"max":1.1,"mean":1.1,"median":1.1,"min":1.1,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[1.1],"summary":{"cv":0.0,"max":1.1,"mean":1.1,"median":1.1,"min":1.1,"n":1},"unit":"s"}',1.1,'s',5.0,'2026-11-30T14:02:00Z');
INSERT INTO runs VALUES(5,2,2,0,'sqrt',2,'{"n":1000}','[1.12]','{"cv":0.0,"max":1.12,"mean":1.12,"median":1.12,"min":1.12,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[1.12],"summary":{"cv":0.0,"max":1.12,"mean":1.12,"median":1.12,"min":1.12,"n":1},"unit":"s"}',1.12,'s',5.0,'2026-11-30T14:02:00Z');
INSERT INTO runs VALUES(6,2,2,0,'sqrt',3,'{"n":1000}','[1.15]','{"cv":0.0,"max":1.15,"mean":1.15,"median":1.15,"min":1.15,"n":1}','{"benchmark":"sqrt","lower_is_better":true,"metric":"time","samples":[1.15],"summary":{"cv":0.0,"max":1.15,"mean":1.15,"median":1.15,"min":1.15,"n":1},"unit":"s"}',1.15,'s',5.0,'2026-11-30T14:02:00Z');
COMMIT;
