-- psi windows by relative message index: anchor p's window is the messages p + lo .. p + hi of
-- its key in time order; only full windows give a row, a point event at the anchor's time.
CREATE OR REPLACE TEMPORARY VIEW msgs(ts, v) AS VALUES
  (10L, 1L), (20L, 2L), (30L, 4L), (40L, 8L), (50L, 16L);

-- (-2, 0) over 5 messages: 3 rows (anchors 30, 40, 50): 1+2+4, 2+4+8, 4+8+16.
SELECT window.start, window.end, window.first, window.last, sum(v), collect_list(v)
FROM msgs GROUP BY index_window(ts, -2, 0)
ORDER BY 1;

-- (0, 2): anchors 10, 20, 30: 1+2+4, 2+4+8, 4+8+16.
SELECT window.start, window.first, window.last, sum(v)
FROM msgs GROUP BY index_window(ts, 0, 2)
ORDER BY 1;

-- (-1, 2): anchors 20 (10..40: 15), 30 (20..50: 30).
SELECT window.start, window.first, window.last, sum(v)
FROM msgs GROUP BY index_window(ts, -1, 2)
ORDER BY 1;

-- Windows without their anchor: (-3, -1): anchors 40 (1+2+4), 50 (2+4+8);
-- (1, 3): anchors 10 (2+4+8), 20 (4+8+16).
SELECT window.start, window.first, window.last, sum(v)
FROM msgs GROUP BY index_window(ts, -3, -1)
ORDER BY 1;

SELECT window.start, window.first, window.last, sum(v)
FROM msgs GROUP BY index_window(ts, 1, 3)
ORDER BY 1;

-- A window longer than the data: no row.
SELECT count(*) FROM msgs GROUP BY index_window(ts, -5, 0);

-- Running window (lo NULL): every anchor, from the first message: 1, 3, 7, 15, 31.
SELECT window.start, window.first, sum(v), avg(v)
FROM msgs GROUP BY index_window(ts, NULL, 0)
ORDER BY 1;

-- Ties in time. With an order column: (20, o=2, 'x'), (20, o=1, 'y') are ordered y, x.
-- (-1, 0): anchors y (10's 'w', 'y'), x ('y', 'x'), 'z' ('x', 'z').
CREATE OR REPLACE TEMPORARY VIEW ties(ts, o, s) AS VALUES
  (10L, 0, 'w'), (20L, 2, 'x'), (20L, 1, 'y'), (30L, 0, 'z');

SELECT window.start, window.first, collect_list(s)
FROM ties GROUP BY index_window(ts, -1, 0, o)
ORDER BY 1, 3;

-- Without it, ties are ordered by the values the aggregates read: 'x' before 'y'.
SELECT window.start, collect_list(s)
FROM ties GROUP BY index_window(ts, -1, 0)
ORDER BY 1, 2;

-- Keys and NULL times (skipped): a: 1, 2, 3 -> (-1, 0) anchors 2 (1+2), 3 (2+3); b: only 5.
SELECT k, window.start, sum(v)
FROM VALUES ('a', 1L, 1L), ('a', 2L, 2L), ('a', CAST(NULL AS BIGINT), 100L), ('a', 3L, 3L),
  ('b', 5L, 5L) AS t(k, ts, v)
GROUP BY k, index_window(ts, -1, 0)
ORDER BY 1, 2;

-- psi's Average(3) = avg over index_window(t, -2, 0), and Min/Max alike: (1+2+4)/3, (2+4+8)/3,
-- (4+8+16)/3.
SELECT window.start, avg(v), min(v), max(v), count(v)
FROM msgs GROUP BY index_window(ts, -2, 0)
ORDER BY 1;
