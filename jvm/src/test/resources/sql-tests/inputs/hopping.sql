-- Hand-worked cases on BIGINT ticks.
CREATE OR REPLACE TEMPORARY VIEW ev(k, s, e, v) AS VALUES
  ('a', 1L, 4L, 10L), ('a', 6L, 7L, 1L), ('b', -3L, -1L, 5L), ('b', 0L, CAST(NULL AS BIGINT), 2L);

-- Windows [3n, 3n + 4). a: [1,4) is in [-3,1)? no (1 is not < 1); [0,4), [3,7); [6,7) is in
-- [3,7), [6,10). b: [-3,-1) is in [-6,-2), [-3,1); the open [0, ...) lasts through the horizon
-- tick 6 (the latest finite time): windows [-3,1), [0,4), [3,7), [6,10).
SELECT k, window.start, window.end, count(*), sum(v)
FROM ev GROUP BY k, hopping_window(s, e, 4L, 3L)
ORDER BY 1, 2;

-- The same as point events at the window ends.
SELECT k, window.start, window.end, count(*)
FROM ev GROUP BY k, hopping_window(s, e, 4L, 3L, 0L, 'point')
ORDER BY 1, 2;

-- Gaps: windows [5n, 5n + 2). a's [1,4) meets [0,2), [6,7) meets [5,7); b's [-3,-1) falls
-- into the gap [-3, 0) and is in no window.
SELECT k, window.start, window.end, count(*)
FROM ev GROUP BY k, hopping_window(s, e, 2L, 5L)
ORDER BY 1, 2;

-- Alignment 1 and point events at the starts: tumbling [1 + 2n, 3 + 2n).
SELECT k, window.start, window.end, collect_list(v)
FROM ev GROUP BY k, tumbling_window(s, 2L, 1L)
ORDER BY 1, 2;

-- 'changes' with windows [3n, 3n + 4) hop 3: a's [1,4) snaps to [4, 10), [6,7) to [7, 13);
-- b's [-3,-1) to [-2, 4) and the open [0, ...) to [1, end of time).
SELECT k, window.start, window.end, count(*)
FROM ev GROUP BY k, hopping_window(s, e, 4L, 3L, 0L, 'changes')
ORDER BY 1, 2;

-- Snapshot windows.
SELECT k, window.start, window.end, count(*), sum(v)
FROM ev GROUP BY k, snapshot_window(s, e)
ORDER BY 1, 2;
