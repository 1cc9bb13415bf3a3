-- psi windows by relative time: one row for every message (the anchor at t), over the messages
-- of its key with time in [t + lo, t + hi], ends open or closed as `bounds` says.
CREATE OR REPLACE TEMPORARY VIEW msgs(ts, v) AS VALUES
  (0L, 1L), (2L, 2L), (3L, 4L), (5L, 8L), (9L, 16L);

-- [t - 2, t]: 0 {0}: 1; 2 {0, 2}: 3; 3 {2, 3}: 6; 5 {3, 5}: 12; 9 {9}: 16.
SELECT window.start, window.end, count(*), sum(v), collect_list(v)
FROM msgs GROUP BY time_window(ts, -2, 0)
ORDER BY 1;

-- The four bounds on [t - 3, t - 1], where they differ:
-- '[]' 0 {}, 2 {0}, 3 {0, 2}, 5 {2, 3}, 9 {}
-- '[)' 0 {}, 2 {0}, 3 {0}, 5 {2, 3}, 9 {}        (t - 1 excluded: 3 loses 2)
-- '(]' 0 {}, 2 {0}, 3 {2}, 5 {3}, 9 {}           (t - 3 excluded: 3 loses 0, 5 loses 2)
-- '()' 0 {}, 2 {0}, 3 {}, 5 {3}, 9 {}
SELECT window.start, count(*), sum(v) FROM msgs GROUP BY time_window(ts, -3, -1) ORDER BY 1;

SELECT window.start, count(*), sum(v) FROM msgs GROUP BY time_window(ts, -3, -1, '[)') ORDER BY 1;

SELECT window.start, count(*), sum(v) FROM msgs GROUP BY time_window(ts, -3, -1, '(]') ORDER BY 1;

SELECT window.start, count(*), sum(v) FROM msgs GROUP BY time_window(ts, -3, -1, '()') ORDER BY 1;

-- Looking ahead, both ends positive: [t + 1, t + 3]: 0 {2, 3}: 6; 2 {3, 5}: 12; 3 {5}: 8;
-- 5 {}: NULL; 9 {}: NULL.
SELECT window.start, count(*), sum(v) FROM msgs GROUP BY time_window(ts, 1, 3) ORDER BY 1;

-- Straddling the anchor: [t - 1, t + 2]: 0 {0, 2}: 3; 2 {2, 3}: 6; 3 {2, 3, 5}: 14;
-- 5 {5}: 8; 9 {9}: 16.
SELECT window.start, sum(v) FROM msgs GROUP BY time_window(ts, -1, 2) ORDER BY 1;

-- lo = hi = 0: the messages at the anchor's own time, duplicates included: 2 twice -> 2 each.
SELECT window.start, count(*)
FROM VALUES (1L), (2L), (2L) AS t(ts) GROUP BY time_window(ts, 0, 0) ORDER BY 1;

-- psi's Average(TimeSpan) = avg over time_window(t, -d, 0) (a row per message, partial windows
-- included): d = 3: 0 {1}: 1.0; 2 {1, 2}: 1.5; 3 {1, 2, 4}: 7/3; 5 {2, 4, 8}: 14/3; 9 {16}: 16.0.
SELECT window.start, avg(v), max(v) FROM msgs GROUP BY time_window(ts, -3, 0) ORDER BY 1;

-- TIMESTAMP time with interval strings and intervals, keys: a at :00, :01, :03; b at :00.
-- [t - 2 s, t]: a :00 {1}, :01 {1, 2}, :03 {2, 3}; b :00 {10}.
SELECT k, window.start, sum(v)
FROM VALUES ('a', TIMESTAMP '2024-01-01 00:00:00', 1L), ('a', TIMESTAMP '2024-01-01 00:00:01', 2L),
  ('a', TIMESTAMP '2024-01-01 00:00:03', 3L), ('b', TIMESTAMP '2024-01-01 00:00:00', 10L) AS t(k, ts, v)
GROUP BY k, time_window(ts, '-2 seconds', INTERVAL 0 SECONDS)
ORDER BY 1, 2;
