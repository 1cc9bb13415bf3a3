package io.eventwindows.analysis

import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateFunction, AnyValue, DeclarativeAggregate, First, Last, MaxMinBy
}

/**
 * True if an aggregate function's result does not depend on the order of its input rows, so that
 * Spark's hash aggregate may feed it rows in any order (and partial buffers merged in any order).
 * The window operator feeds events in time order, which first, last, any_value, max_by/min_by (on
 * ties) and imperative functions (collect_list, sketches, UDAFs) may depend on.
 */
private[analysis] object OrderInsensitive extends (AggregateFunction => Boolean) {
  override def apply(f: AggregateFunction): Boolean = f match {
    case _: First | _: Last | _: AnyValue | _: MaxMinBy => false
    case _: DeclarativeAggregate => true
    case _ => false
  }
}
