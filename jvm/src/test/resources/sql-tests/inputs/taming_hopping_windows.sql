-- The example of the "Taming Hopping Windows" post: 5 s windows every 2 s aligned on 2012-03-15
-- 12:00:00 UTC.
CREATE OR REPLACE TEMPORARY VIEW taming_events(payload, s, e) AS VALUES
  ('e0', TIMESTAMP '2012-06-28 00:00:00', CAST(NULL AS TIMESTAMP)),
  ('e1', TIMESTAMP '2012-06-28 00:00:01', TIMESTAMP '2012-06-28 00:00:02'),
  ('e2', TIMESTAMP '2012-06-28 00:00:03', TIMESTAMP '2012-06-28 00:00:10'),
  ('e3', TIMESTAMP '2012-06-28 00:00:09', TIMESTAMP '2012-06-28 00:00:10');

-- The post's "Adjusted Events".
SELECT adjust_start_time(s, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS, TIMESTAMP '2012-03-15 12:00:00'),
       adjust_end_time(e, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS, TIMESTAMP '2012-03-15 12:00:00'),
       payload
FROM taming_events ORDER BY payload;

-- The post's "Query".
SELECT window.start, window.end, count(*)
FROM taming_events
GROUP BY hopping_window(s, e, INTERVAL 5 SECONDS, INTERVAL 2 SECONDS,
                        TIMESTAMP '2012-03-15 12:00:00', 'changes')
ORDER BY 1;
