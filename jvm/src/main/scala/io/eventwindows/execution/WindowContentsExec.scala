package io.eventwindows.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, AttributeSet, BoundReference, GetStructField, JoinedRow, SortOrder,
  SpecificInternalRow, UnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.eventwindows.SparkInternals
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types.{ArrayType, BooleanType, IntegerType, LongType, StructType}

import io.eventwindows.plans.WindowContents

/**
 * The physical operator of [[WindowContents]]: each window row of the child becomes a row per
 * element of its contents (one row with `present` false and NULL elements if it has none),
 * numbered per partition. It keeps the child's partitioning (by the grouping keys) and declares
 * the order it writes (by window, and within a window as collected), so that Spark groups the
 * rows of each window for a Python aggregate or function without a shuffle or a sort.
 *
 * Not a sort: Spark's would not keep a window's order once it spills.
 */
private[execution] case class WindowContentsExec(
    ordinal: Attribute,
    present: Attribute,
    position: Attribute,
    contents: Attribute,
    elements: Seq[Attribute],
    child: SparkPlan) extends UnaryExecNode {

  private def windowColumns: Seq[Attribute] =
    WindowContents.windowColumns(ordinal, present, contents, child.output)

  override def output: Seq[Attribute] = (windowColumns :+ position) ++ elements

  override def producedAttributes: AttributeSet =
    AttributeSet(Seq(ordinal, present, position) ++ elements)

  override def outputPartitioning: Partitioning = child.outputPartitioning

  // True: the ordinal differs between windows, and the other columns are constant over one.
  override def outputOrdering: Seq[SortOrder] = windowColumns.map(SortOrder(_, Ascending))

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override protected def doExecute(): RDD[InternalRow] = {
    val numOutputRows = longMetric("numOutputRows")
    val input = child.output
    val contentsIndex = input.indexWhere(_.exprId == contents.exprId)
    val elementType = contents.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType]
    val numFields = elementType.size
    val throughIndices = input.indices.filter(_ != contentsIndex)
    SparkInternals.mapPartitions(child.execute()) { rows =>
      // Per row: the child's columns, then (ordinal, present, element, position) in a row of
      // its own.
      val extra = new SpecificInternalRow(Seq(LongType, BooleanType, elementType, IntegerType))
      val joined = new JoinedRow
      val base = input.size
      val project = UnsafeProjection.create(
        Seq(BoundReference(base, LongType, nullable = false)) ++
          throughIndices.map(i => BoundReference(i, input(i).dataType, input(i).nullable)) ++
          Seq(
            BoundReference(base + 1, BooleanType, nullable = false),
            BoundReference(base + 3, IntegerType, nullable = false)) ++
          elementType.indices.map { f =>
            GetStructField(BoundReference(base + 2, elementType, nullable = true), f)
          })
      var ordinal = 0L
      rows.flatMap { row =>
        val elements = row.getArray(contentsIndex)
        val count = if (elements == null) 0 else elements.numElements()
        extra.setLong(0, ordinal)
        ordinal += 1
        // The rows are projected one at a time: each one is read before the next is made.
        Iterator.range(0, Math.max(count, 1)).map { i =>
          extra.setBoolean(1, count > 0)
          extra.setInt(3, i)
          if (count > 0) extra.update(2, elements.getStruct(i, numFields)) else extra.setNullAt(2)
          numOutputRows += 1
          project(joined(row, extra))
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): WindowContentsExec =
    copy(child = newChild)
}
