-- A real two-cell store (topolab run of a host-backend sqrt experiment, threads 1 vs 2, baseline
-- threads=1), dumped with sqlite3 .dump; tests corrupt single columns of it.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version','2');
CREATE TABLE experiments(
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL,
  host_topology TEXT, versions TEXT, created TEXT NOT NULL, updated TEXT NOT NULL);
INSERT INTO experiments VALUES(1,'rt','{"backend":"host","baseline":{"param.sqrt.threads":1},"benchmarks":[{"name":"sqrt","params":{"n":1000,"repeats":1}}],"description":"","exclude":[],"factors":[{"key":"param.sqrt.threads","levels":[1,2]}],"layout":"","name":"rt","repetitions":1,"seed":1,"source_file":"e_ok.toml","timeout_s":600}','{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":32768}],"model":"AMD EPYC","numa_nodes":[{"cpus":"0-1","hugepages":[{"free":0,"page_kib":2048,"total":0},{"free":0,"page_kib":1048576,"total":0}],"id":0,"memory_kib":20014876}],"packages":[{"cpus":"0-1","id":0}],"source":"sysfs:/","vendor":"AuthenticAMD"}','{"backend":"host","topolab":"0.1.0"}','2026-11-30T13:48:13Z','2026-11-30T13:48:13Z');
CREATE TABLE cells(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  cell_key TEXT NOT NULL, config_key TEXT NOT NULL, factors TEXT NOT NULL, label TEXT NOT NULL,
  position INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'pending', error TEXT,
  mismatches TEXT, boot_id INTEGER, layout TEXT, UNIQUE(experiment_id, cell_key));
INSERT INTO cells VALUES(1,1,'{"param.sqrt.threads":1}','{}','{"param.sqrt.threads":1}','param.sqrt.threads=1',0,'done','','[]',1,'null');
INSERT INTO cells VALUES(2,1,'{"param.sqrt.threads":2}','{}','{"param.sqrt.threads":2}','param.sqrt.threads=2',1,'done','','[]',1,'null');
CREATE TABLE boots(
  id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  config_key TEXT NOT NULL, order_seed TEXT NOT NULL, intended_topology TEXT,
  seen_topology TEXT, mismatches TEXT, timings TEXT, versions TEXT, started TEXT NOT NULL);
INSERT INTO boots VALUES(1,1,'{}','3541122077042139579',NULL,'{"cpus":[{"core":0,"die":0,"id":0,"l3":0,"node":0,"online":true,"package":0,"siblings":"0"},{"core":1,"die":0,"id":1,"l3":0,"node":0,"online":true,"package":0,"siblings":"1"}],"dies":[{"cpus":"0-1","die_id":0,"id":0,"package":0}],"isolated":"","l3_domains":[{"cpus":"0-1","id":0,"size_kib":32768}],"model":"AMD EPYC","numa_nodes":[{"cpus":"0-1","hugepages":[{"free":0,"page_kib":2048,"total":0},{"free":0,"page_kib":1048576,"total":0}],"id":0,"memory_kib":20014876}],"packages":[{"cpus":"0-1","id":0}],"source":"sysfs:/","vendor":"AuthenticAMD"}','[]','{"hello_ms":66.494511}','{"agent":"0.1.0","kernel":"Linux 6.18.44-fc-v857"}','2026-11-30T13:48:13Z');
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER NOT NULL, benchmark TEXT NOT NULL, repetition INTEGER NOT NULL,
  params TEXT NOT NULL, samples TEXT, summary TEXT, result TEXT NOT NULL, value REAL,
  unit TEXT, duration_ms REAL, started TEXT NOT NULL,
  UNIQUE(cell_id, benchmark_index, repetition));
INSERT INTO runs VALUES(1,2,1,0,'sqrt',1,'{"n":1000,"repeats":1,"threads":2}','[0.000616441]','{"cv":0.0,"max":0.000616441,"mean":0.000616441,"median":0.000616441,"min":0.000616441,"n":1}','{"benchmark":"sqrt","details":{"checksum":20615,"checksum_ok":true,"expected_checksum":20615,"n":1000,"runs":[{"seconds":0.000616441,"thread_seconds":[7.321000000000001e-06,9.634000000000001e-06]}]},"environment":{"cpus":"0-1","steal_after":273,"steal_before":273,"threads":2},"lower_is_better":true,"metric":"time","params":{"cpus":"","n":1000,"pin":"none","repeats":1,"threads":2},"samples":[0.000616441],"summary":{"cv":0.0,"max":0.000616441,"mean":0.000616441,"median":0.000616441,"min":0.000616441,"n":1},"unit":"s"}',0.00061644100000000001584,'s',4.0257979999999999876,'2026-11-30T13:48:13Z');
INSERT INTO runs VALUES(2,1,1,0,'sqrt',1,'{"n":1000,"repeats":1,"threads":1}','[1.6095e-05]','{"cv":0.0,"max":1.6095e-05,"mean":1.6095e-05,"median":1.6095e-05,"min":1.6095e-05,"n":1}','{"benchmark":"sqrt","details":{"checksum":20615,"checksum_ok":true,"expected_checksum":20615,"n":1000,"runs":[{"seconds":1.6095e-05,"thread_seconds":[1.6095e-05]}]},"environment":{"cpus":"0-1","steal_after":273,"steal_before":273,"threads":1},"lower_is_better":true,"metric":"time","params":{"cpus":"","n":1000,"pin":"none","repeats":1,"threads":1},"samples":[1.6095e-05],"summary":{"cv":0.0,"max":1.6095e-05,"mean":1.6095e-05,"median":1.6095e-05,"min":1.6095e-05,"n":1},"unit":"s"}',1.6095000000000000907e-05,'s',6.5456039999999999778,'2026-11-30T13:48:13Z');
CREATE TABLE failures(
  id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells(id), boot_id INTEGER,
  benchmark_index INTEGER, repetition INTEGER, error TEXT NOT NULL, at TEXT NOT NULL);
COMMIT;
