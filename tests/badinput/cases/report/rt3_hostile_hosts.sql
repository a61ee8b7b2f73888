-- Redteam wave 3: a store (written by tiny_host.toml) tampered so that its cells' hosts hold an
-- escape sequence, markup, a password and 40 KB: two hosts, so the report has a host column.
UPDATE cells SET host = char(27) || '[2J<script>alert(1)</script>qemu+tcp://u:s3cret@h/system';
INSERT INTO cells(experiment_id, cell_key, config_key, factors, label, position, status, host)
  SELECT experiment_id, cell_key, config_key, factors, label, position + 1, status,
         'qemu+ssh://' || hex(zeroblob(20000)) || '/system' FROM cells;
UPDATE experiments SET context = json_set(context, '$.connect_uri', 'qemu+tcp://u:s3cret@h/system');
