-- StreamInsight's count windows: every n consecutive distinct start times s_i..s_k of a key give
-- the window [s_i, s_k + 1) holding every event with start <= s_k and end > s_i.

-- The interval events of StreamInsight's count windows: e1 [1, 6), e2 [3, 5), e3 [7, 9), n = 2.
-- Distinct starts 1, 3, 7:
-- W = [1, 4) holds e1, e2; W = [3, 8) holds e1 (ends 6 > 3), e2 (ends 5 > 3) and e3.
-- Output 'point' (default): point events at 3 and 7.
CREATE OR REPLACE TEMPORARY VIEW count_events(id, s, e) AS VALUES
  ('e1', 1L, 6L), ('e2', 3L, 5L), ('e3', 7L, 9L);

SELECT window.start, window.end, window.first, window.last, count(*), collect_list(id)
FROM count_events GROUP BY count_window(s, e, 2)
ORDER BY 1;

-- The same windows with output 'window': lifetimes [1, 4) and [3, 8).
SELECT window.start, window.end, count(*)
FROM count_events GROUP BY count_window(s, e, 2, 'window')
ORDER BY 1;

-- The point events of StreamInsight's count windows, two of them collocated at 2: times 1, 2, 2,
-- 4, 5, n = 2. The two events at 2 count as one start time. [1, 3): 1, 2, 2 (3 events, sum
-- 1+2+3 = 6); [2, 5): 2, 2, 4 (sum 2+3+4 = 9); [4, 6): 4, 5 (sum 4+5 = 9).
CREATE OR REPLACE TEMPORARY VIEW points(ts, v) AS VALUES
  (1L, 1L), (2L, 2L), (2L, 3L), (4L, 4L), (5L, 5L);

SELECT window.start, window.end, window.first, count(*), sum(v)
FROM points GROUP BY count_window(ts, 2)
ORDER BY 1;

-- n = 1: one window per distinct start, [s, s + 1): 1 (1), 2 (2 events), 4, 5.
SELECT window.start, count(*), sum(v)
FROM points GROUP BY count_window(ts, 1)
ORDER BY 1;

-- n = 1 over interval events is the snapshot at each start: at 1 {e1}, at 3 {e1, e2}, at 7 {e3}.
SELECT window.start, collect_list(id)
FROM count_events GROUP BY count_window(s, e, 1)
ORDER BY 1;

-- n = 4 over 4 distinct starts: one window [1, 6) with all five events; n = 5: none.
SELECT window.start, window.first, count(*) FROM points GROUP BY count_window(ts, 4);

SELECT count(*) FROM points GROUP BY count_window(ts, 5);

-- Keys, a long event spanning many windows, an open-ended event, rows that are no events.
-- a: [0, 100) long, points at 10, 20, 30; n = 2: [0, 11) {long, 10}, [10, 21) {long, 10, 20},
--    [20, 31) {long, 20, 30}.
-- b: [5, NULL) open-ended, [6, 7), a NULL start (skipped), an empty lifetime [8, 8) (skipped,
--    its start does not count), [9, 10); n = 2: [5, 7) {open, 6}, [6, 10) {open, 6, 9}.
-- NULL key: [1, 2), [3, 4): [1, 4) {both}.
CREATE OR REPLACE TEMPORARY VIEW keyed(k, s, e, v) AS VALUES
  ('a', 0L, 100L, 1L), ('a', 10L, 11L, 2L), ('a', 20L, 21L, 3L), ('a', 30L, 31L, 4L),
  ('b', 5L, CAST(NULL AS BIGINT), 10L), ('b', 6L, 7L, 20L), ('b', CAST(NULL AS BIGINT), 1L, 99L),
  ('b', 8L, 8L, 99L), ('b', 9L, 10L, 30L),
  (CAST(NULL AS STRING), 1L, 2L, 7L), (CAST(NULL AS STRING), 3L, 4L, 8L);

SELECT k, window.start, window.end, window.first, count(*), sum(v)
FROM keyed GROUP BY k, count_window(s, e, 2, 'window')
ORDER BY 1 NULLS FIRST, 2;

-- TIMESTAMP time, INT n: point events at :00, :01, :01, :03; n = 2: [:00, :01.000001) with 3,
-- [:01, :03.000001) with 3 events.
SELECT window.start, window.end, count(*)
FROM VALUES (TIMESTAMP '2024-01-01 00:00:00'), (TIMESTAMP '2024-01-01 00:00:01'),
  (TIMESTAMP '2024-01-01 00:00:01'), (TIMESTAMP '2024-01-01 00:00:03') AS t(ts)
GROUP BY count_window(ts, CAST(2 AS INT), 'window')
ORDER BY 1;
