-- Redteam wave 4: one stored value of 20 MB (a 300 MB label and spec ended `report` with
-- bad_alloc under the 2 GiB bound, exit 70). topolab never writes a value over 16 MiB.
UPDATE cells SET label = printf('%.*c', 20000000, 'x') WHERE id = 1;
