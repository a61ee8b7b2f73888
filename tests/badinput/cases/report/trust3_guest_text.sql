-- Issue 32 class 6: a guest's error text and a stored label as a hostile guest or an edited
-- store would leave them: a spreadsheet formula, a bidirectional override (U+202E), a byte
-- that is not UTF-8.
UPDATE cells SET status = 'failed', error = '=HYPERLINK("http://evil/","click")',
  label = 'param.sqrt.threads=1 ' || char(8238) || 'desab' || CAST(X'FF' AS TEXT);
