package io.eventwindows.execution

import io.eventwindows.analysis.CheckStreaming
import io.eventwindows.plans.EventWindowAggregate

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

/**
 * Plans an [[EventWindowAggregate]] as an [[EventWindowAggregateExec]]; never a streaming one,
 * which the operator would window per micro-batch ([[CheckStreaming]] rejects those first).
 */
object EventWindowStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case a: EventWindowAggregate if a.isStreaming => CheckStreaming.reject(a)
    case a: EventWindowAggregate =>
      EventWindowAggregateExec(a.keys, a.family, a.start, a.end, a.order, a.values,
        a.windowAttribute, a.aggregates, a.filters, a.aggregateAttributes,
        planLater(a.child)) :: Nil
    case _ => Nil
  }
}
