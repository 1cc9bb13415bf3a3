package io.eventwindows.execution

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, JoinedRow, Literal, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.IntegerType

/**
 * One task's partial aggregate of each anchor of dynamic windows: the merge of the buffers of the
 * slices its interval covers, once [[AnchorSliceAggregateExec]] has folded the task's messages
 * into `slices`. The slices with messages become the entries of a [[SlidingAggregator]] in slice
 * order, so an interval is a range of entries, merged in O(log n) whatever the intervals' lengths
 * and nesting.
 *
 * Rows: the anchor's number and its buffer (Spark's partial aggregation output, in the
 * functions' buffer layout), for each anchor with a message in this task; with `everyAnchor`, for
 * every anchor (the initial buffer when it has none), so that Spark's final aggregate by anchor
 * number has a row for each anchor, including anchors with no message at all.
 */
final class AnchorPartials(
    endpoints: AnchorEndpoints,
    slices: SliceBuffers,
    aggregates: Seq[DeclarativeAggregate],
    everyAnchor: Boolean) extends Iterator[InternalRow] {

  // The slices' buffers are read as partial buffers and merged, as Spark's final aggregation does.
  private val partial = aggregates.flatMap(_.inputAggBufferAttributes)
  private val buffers =
    new AggregateBuffers(aggregates, aggregates.map(_ => Literal.TrueLiteral), partial, partial)
  private val tree = new SlidingAggregator(buffers)
  /** The entry of each slice with messages. */
  private val entries = new Array[tree.Entry](endpoints.sliceCount)

  locally {
    val row = new UnsafeRow(partial.size)
    var s = slices.nextTouched(0)
    while (s >= 0) {
      slices.pointTo(s, row)
      val entry = tree.append(s)
      tree.update(entry, row)
      tree.seal(entry)
      entries(s) = entry
      s = slices.nextTouched(s + 1)
    }
  }

  private val initial = buffers.newBuffer()
  private val anchorNumber = new SpecificInternalRow(Seq(IntegerType))
  private val joined = new JoinedRow
  private val toRow = UnsafeProjection.create(
    BoundReference(0, IntegerType, nullable = false) +: partial.zipWithIndex.map { case (b, i) =>
      BoundReference(1 + i, b.dataType, b.nullable)
    })

  private var anchor = -1
  /** The buffer of `anchor`, or null when no anchor is left. */
  private var buffer: InternalRow = _
  advance()

  private def advance(): Unit = {
    buffer = null
    while (buffer == null && anchor + 1 < endpoints.anchorCount) {
      anchor += 1
      val last = endpoints.lastSliceOf(anchor)
      val first = slices.nextTouched(endpoints.firstSliceOf(anchor))
      if (first >= 0 && first <= last) {
        buffer = tree.rangeBuffer(entries(first), entries(slices.previousTouched(last)))
      } else if (everyAnchor) {
        buffer = initial
      }
    }
  }

  override def hasNext: Boolean = buffer != null

  override def next(): InternalRow = {
    anchorNumber.setInt(0, anchor)
    val row = toRow(joined(anchorNumber, buffer))
    advance()
    row
  }
}
