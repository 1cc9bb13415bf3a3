-- psi's dynamic windows: a table holding messages (anchor column NULL) and anchors (anchor column
-- set, with an interval [s, e]) grouped by anchor_window(ts, s, e, a[, bounds]). One row per
-- anchor, over the messages of its keys with ts in its interval, also when there are none.
-- Aggregates see the messages only. Expected rows are the lines "-- | ...", worked out by hand
-- (tests/test_dynamic_window.py checks them).
CREATE OR REPLACE TEMPORARY VIEW aw_msgs(ts, v) AS VALUES
  (1L, 1L), (2L, 2L), (4L, 8L), (4L, 4L), (6L, 16L), (9L, 32L), (9L, NULL), (NULL, 64L);

CREATE OR REPLACE TEMPORARY VIEW aw_anchors(id, s, e) AS VALUES
  ('outer', 0L, 10L), ('inner', 2L, 4L), ('inner2', 2L, 4L), ('over', 4L, 7L), ('gap', 5L, 5L),
  ('point', 6L, 6L), ('last', 9L, 9L), ('before', -5L, -1L), ('after', 20L, 30L);

CREATE OR REPLACE TEMPORARY VIEW aw_union AS
SELECT ts, v, CAST(NULL AS BIGINT) AS s, CAST(NULL AS BIGINT) AS e,
  CAST(NULL AS STRUCT<id: STRING>) AS a
FROM aw_msgs
UNION ALL
SELECT NULL, NULL, s, e, named_struct('id', id) FROM aw_anchors;

-- Nested (inner in outer), overlapping (over and inner share 4), duplicate (inner2 = inner), a
-- gap between messages (gap), one-tick intervals (point, last), and intervals wholly before and
-- after the data. The message with a NULL time (64) is in no window. Ties at 4 (8, then 4 in the
-- input) are listed by value, at 9 the NULL value counts for count(*) only.
--   outer  [0, 10]  1, 2, 4, 4, 6, 9, 9  -> 7 rows, 6 values, 63, [1, 2, 4, 8, 16, 32]
--   inner  [2, 4]   2, 4, 4              -> 3, 3, 2 + 4 + 8 = 14
--   over   [4, 7]   4, 4, 6              -> 3, 3, 4 + 8 + 16 = 28
--   gap    [5, 5]   none                 -> 0, 0, NULL, []
--   point  [6, 6]   6                    -> 16
--   last   [9, 9]   9 (32), 9 (NULL)     -> 2 rows, 1 value, 32
-- | before | -5 | -1 | 0 | 0 | NULL | []
-- | outer | 0 | 10 | 7 | 6 | 63 | [1, 2, 4, 8, 16, 32]
-- | inner | 2 | 4 | 3 | 3 | 14 | [2, 4, 8]
-- | inner2 | 2 | 4 | 3 | 3 | 14 | [2, 4, 8]
-- | over | 4 | 7 | 3 | 3 | 28 | [4, 8, 16]
-- | gap | 5 | 5 | 0 | 0 | NULL | []
-- | point | 6 | 6 | 1 | 1 | 16 | [16]
-- | last | 9 | 9 | 2 | 1 | 32 | [32]
-- | after | 20 | 30 | 0 | 0 | NULL | []
SELECT window.anchor.id, window.start, window.end, count(*), count(v), sum(v), collect_list(v)
FROM aw_union GROUP BY anchor_window(ts, s, e, a)
ORDER BY 2, 3, 1;

-- Two keys and more (GROUP BY k, anchor_window(...)): messages match anchors of their key only,
-- the NULL key matches the NULL key. Key c has anchors only (its row is empty), key d messages
-- only (no row).
--   a1 a [1, 3]   a's 1 (1), 3 (2)           -> 2, 3
--   a2 a [2, 5]   a's 3 (2)                  -> 1, 2
--   b1 b [1, 3]   b's 2 (10), 3 (20), not 7  -> 2, 30
--   c1 c [0, 10]  none                       -> 0, NULL
--   n1 NULL [0, 5]  NULL's 3 (100)           -> 1, 100
-- | a | a1 | 1 | 3 | 2 | 3 | [1, 2]
-- | a | a2 | 2 | 5 | 1 | 2 | [2]
-- | b | b1 | 1 | 3 | 2 | 30 | [10, 20]
-- | c | c1 | 0 | 10 | 0 | NULL | []
-- | NULL | n1 | 0 | 5 | 1 | 100 | [100]
SELECT k, window.anchor.id, window.start, window.end, count(*), sum(v), collect_list(v)
FROM (
  SELECT k, ts, v, CAST(NULL AS BIGINT) AS s, CAST(NULL AS BIGINT) AS e,
    CAST(NULL AS STRUCT<id: STRING>) AS a
  FROM VALUES ('a', 1L, 1L), ('a', 3L, 2L), ('b', 2L, 10L), ('b', 3L, 20L), ('b', 7L, 40L),
    (NULL, 3L, 100L), ('d', 2L, 1000L) AS m(k, ts, v)
  UNION ALL
  SELECT k, NULL, NULL, s, e, named_struct('id', id)
  FROM VALUES ('a', 'a1', 1L, 3L), ('a', 'a2', 2L, 5L), ('b', 'b1', 1L, 3L), ('c', 'c1', 0L, 10L),
    (NULL, 'n1', 0L, 5L) AS q(k, id, s, e))
GROUP BY k, anchor_window(ts, s, e, a)
ORDER BY 2;

-- Both ends excluded, '()': messages 0 (1), 2 (2), 3 (4), 5 (8), 9 (16).
--   a (2, 5)   3                 -> 1, 4
--   b (5, 5)   an empty interval -> 0, NULL
--   c (2, 3)   no tick between   -> 0, NULL
--   d (0, 9)   2, 3, 5           -> 3, 14
--   e (-1, 0)  0 is excluded     -> 0, NULL
--   f (4, 6)   5                 -> 1, 8
-- | a | 2 | 5 | 1 | 4 | [4]
-- | b | 5 | 5 | 0 | NULL | []
-- | c | 2 | 3 | 0 | NULL | []
-- | d | 0 | 9 | 3 | 14 | [2, 4, 8]
-- | e | -1 | 0 | 0 | NULL | []
-- | f | 4 | 6 | 1 | 8 | [8]
SELECT window.anchor.id, window.start, window.end, count(*), sum(v), collect_list(v)
FROM (
  SELECT ts, v, CAST(NULL AS BIGINT) AS s, CAST(NULL AS BIGINT) AS e,
    CAST(NULL AS STRUCT<id: STRING>) AS a
  FROM VALUES (0L, 1L), (2L, 2L), (3L, 4L), (5L, 8L), (9L, 16L) AS m(ts, v)
  UNION ALL
  SELECT NULL, NULL, s, e, named_struct('id', id)
  FROM VALUES ('a', 2L, 5L), ('b', 5L, 5L), ('c', 2L, 3L), ('d', 0L, 9L), ('e', -1L, 0L),
    ('f', 4L, 6L) AS q(id, s, e))
GROUP BY anchor_window(ts, s, e, a, '()')
ORDER BY 1;

-- psi's clock example over TIMESTAMP time: a clock ticking every 0.5 s from 00:00:00 to 00:00:02
-- (psi's Generators.Repeat) anchors [t - 0.5 s, t + 0.5 s]. Messages at 0.1 (1), 0.4 (2),
-- 0.5 (4), 1.2 (8), 1.3 (16), 2.0 (32), and -0.7 (128) and 2.7 (64) in no window.
--   t 0.0 [-0.5, 0.5]  0.1, 0.4, 0.5  -> 3, 7
--   t 0.5 [0.0, 1.0]   0.1, 0.4, 0.5  -> 3, 7
--   t 1.0 [0.5, 1.5]   0.5, 1.2, 1.3  -> 3, 28
--   t 1.5 [1.0, 2.0]   1.2, 1.3, 2.0  -> 3, 56
--   t 2.0 [1.5, 2.5]   2.0            -> 1, 32
-- | 2024-01-01 00:00:00 | 2023-12-31 23:59:59.5 | 2024-01-01 00:00:00.5 | 3 | 7 | [1, 2, 4]
-- | 2024-01-01 00:00:00.5 | 2024-01-01 00:00:00 | 2024-01-01 00:00:01 | 3 | 7 | [1, 2, 4]
-- | 2024-01-01 00:00:01 | 2024-01-01 00:00:00.5 | 2024-01-01 00:00:01.5 | 3 | 28 | [4, 8, 16]
-- | 2024-01-01 00:00:01.5 | 2024-01-01 00:00:01 | 2024-01-01 00:00:02 | 3 | 56 | [8, 16, 32]
-- | 2024-01-01 00:00:02 | 2024-01-01 00:00:01.5 | 2024-01-01 00:00:02.5 | 1 | 32 | [32]
SELECT window.anchor.t, window.start, window.end, count(*), sum(v), collect_list(v)
FROM (
  SELECT ts, v, CAST(NULL AS TIMESTAMP) AS s, CAST(NULL AS TIMESTAMP) AS e,
    CAST(NULL AS STRUCT<t: TIMESTAMP>) AS a
  FROM VALUES (TIMESTAMP '2023-12-31 23:59:59.3', 128L), (TIMESTAMP '2024-01-01 00:00:00.1', 1L),
    (TIMESTAMP '2024-01-01 00:00:00.4', 2L), (TIMESTAMP '2024-01-01 00:00:00.5', 4L),
    (TIMESTAMP '2024-01-01 00:00:01.2', 8L), (TIMESTAMP '2024-01-01 00:00:01.3', 16L),
    (TIMESTAMP '2024-01-01 00:00:02', 32L), (TIMESTAMP '2024-01-01 00:00:02.7', 64L) AS m(ts, v)
  UNION ALL
  SELECT NULL, NULL, t - INTERVAL '0.5' SECOND, t + INTERVAL '0.5' SECOND, named_struct('t', t)
  FROM (SELECT explode(sequence(TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 00:00:02',
    INTERVAL '0.5' SECOND)) AS t))
GROUP BY anchor_window(ts, s, e, a)
ORDER BY 1;
