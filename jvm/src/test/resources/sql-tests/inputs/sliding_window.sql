-- IBM Streams SPL sliding windows: eviction x trigger, on each arrival a time trigger's
-- earlier instants first, then a delta trigger on the window before the tuple, eviction,
-- insertion, and a count trigger.

-- count(4), trigger count(1) (the default): after four tuples each new one evicts the oldest.
-- 1 [1]; 2 [1,2]; 3 [1,2,3]; 4 [1,2,3,4]; 5 [2,3,4,5]; 6 [3,4,5,6].
SELECT window.start, window.first, window.last, count(*), collect_list(v)
FROM VALUES (1L, 1), (2L, 2), (3L, 3), (4L, 4), (5L, 5), (6L, 6) AS t(ts, v)
GROUP BY sliding_window(ts, 'count(4)')
ORDER BY 1;

-- time(5 seconds) with A at t, B at t + 1, C at t + 3.5, D at t + 6, E at t + 7, seen by a time
-- trigger every second from t: at t + 4 the window holds A, B, C (C for 0.5 s); at t + 6 A has
-- been in it for 6 s > 5 and is gone, B for exactly 5 s stays; at t + 7 (E's arrival, the last
-- instant) B is gone too: C, D, E.
SELECT window.start, collect_list(id)
FROM VALUES (TIMESTAMP '2024-01-01 00:00:00', 'A'), (TIMESTAMP '2024-01-01 00:00:01', 'B'),
  (TIMESTAMP '2024-01-01 00:00:03.5', 'C'), (TIMESTAMP '2024-01-01 00:00:06', 'D'),
  (TIMESTAMP '2024-01-01 00:00:07', 'E') AS t(ts, id)
GROUP BY sliding_window(ts, 'time(5 seconds)', 'time(1)')
ORDER BY 1;

-- delta(temperature, 1.5): [17.1, 16.4, 16.0] + 17.6 evicts 16.0 only (17.6 - 16.0 > 1.5);
-- 14.0 evicts nothing, so the window does not slide: 17.1, 16.4, 17.6, 14.0. DECIMAL values are
-- compared exactly: 15.5 - 14.0 = 1.5 is not more than 1.5.
SELECT window.start, collect_list(temperature)
FROM VALUES (1L, 17.1BD), (2L, 16.4BD), (3L, 16.0BD), (4L, 17.6BD), (5L, 14.0BD), (6L, 15.5BD)
  AS t(ts, temperature)
GROUP BY sliding_window(ts, 'delta(temperature, 1.5)')
ORDER BY 1;

-- A delta trigger sees the window before the new tuple: count(2) eviction, delta(ts, 2) trigger.
-- A(0) sets the reference; B(1): 1 - 0 <= 2; C(4): 4 - 0 > 2 fires on [A, B], C is the
-- reference; then A leaves and C enters; D(5): no; E(9): 9 - 4 > 2 fires on [C, D].
SELECT window.start, window.first, window.last, collect_list(id)
FROM VALUES (0L, 'A'), (1L, 'B'), (4L, 'C'), (5L, 'D'), (9L, 'E') AS t(ts, id)
GROUP BY sliding_window(ts, 'count(2)', 'delta(ts, 2)')
ORDER BY 1;

-- A count trigger fires after insertion, also before the window is full: count(3) eviction,
-- count(2) trigger over 1..5: at 2 [1, 2], at 4 [2, 3, 4]. Keys partition: b has one tuple only.
SELECT k, window.start, collect_list(v)
FROM VALUES ('a', 1L, 1), ('a', 2L, 2), ('a', 3L, 3), ('a', 4L, 4), ('a', 5L, 5), ('b', 1L, 9)
  AS t(k, ts, v)
GROUP BY k, sliding_window(ts, 'count(3)', 'count(2)')
ORDER BY 1, 2;

-- A time trigger fires where no tuple arrives, after time eviction at the instant: time(2)
-- eviction, time(3) trigger; tuples at 0, 1, 10. Instants 3, 6, 9 (<= the last arrival 10):
-- at 3 the window holds 1 (0 is 3 old > 2), at 6 and 9 it is empty (no row).
SELECT window.start, collect_list(ts)
FROM VALUES (0L), (1L), (10L) AS t(ts)
GROUP BY sliding_window(ts, 'time(2)', 'time(3)')
ORDER BY 1;
