package io.eventwindows.execution.slices

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  BoundReference, JoinedRow, Literal, SpecificInternalRow, UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.IntegerType

import io.eventwindows.execution.aggregate.{AggregateBuffers, SlidingAggregator}

/**
 * One task's partial aggregate of each anchor of dynamic windows: the merge of the buffers of the
 * slices its interval covers, once [[AnchorSliceAggregateExec]] has folded the task's messages
 * into `slices`. An interval over at most [[AnchorPartials.DirectFold]] slices with messages is
 * folded directly, its slices' buffers merged one by one into a buffer ([[AggregateBuffers]],
 * which merges partial buffers as Spark's final aggregation does); a longer one is a range query on a
 * [[SlidingAggregator]] whose entries are the slices with messages, in order, built when first
 * needed: O(log n) merges whatever the intervals' lengths and nesting. Merges need not follow
 * time order: the aggregates are order-insensitive.
 *
 * Rows: the anchor's number and its buffer (Spark's partial aggregation output, in the
 * functions' buffer layout), for each anchor with a message in this task; with `everyAnchor`, for
 * every anchor (the initial buffer when it has none), so that Spark's final aggregate by anchor
 * number has a row for each anchor, including anchors with no message at all.
 */
private[execution] final class AnchorPartials(
    endpoints: AnchorEndpoints,
    slices: SliceBuffers,
    aggregates: Seq[DeclarativeAggregate],
    everyAnchor: Boolean) extends Iterator[InternalRow] {

  import AnchorPartials.DirectFold

  // A slice's buffer read as a partial buffer: adding it to a buffer merges it, as Spark's final
  // aggregation merges its input.
  private val partial = aggregates.flatMap(_.inputAggBufferAttributes)
  private val buffers =
    new AggregateBuffers(aggregates, aggregates.map(_ => Literal.TrueLiteral), partial, partial)
  private val slice = new UnsafeRow(partial.size)

  /** The direct fold's buffer. */
  private val sum = buffers.newBuffer()

  /** The slices with messages as the entries of a segment tree, in order, for long intervals. */
  private final class SliceTree {
    private val tree = new SlidingAggregator(buffers, slices.memory)
    private val entries = slices.memory.longs(endpoints.sliceCount)
    private var s = slices.nextTouched(0)
    while (s >= 0) {
      slices.pointTo(s, slice)
      val entry = tree.append(s)
      tree.update(entry, slice)
      tree.seal(entry)
      entries(s) = entry
      s = slices.nextTouched(s + 1)
    }

    /** The merge of the buffers of the slices from `first` to `last`, which have messages. */
    def range(first: Int, last: Int): InternalRow = tree.rangeBuffer(entries(first), entries(last))
  }
  private lazy val sliceTree = new SliceTree

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
        buffer = if (fewSlices(first, last)) fold(first, last)
        else sliceTree.range(first, slices.previousTouched(last))
      } else if (everyAnchor) {
        buffer = initial
      }
    }
  }

  /** True if at most DirectFold slices from `first` to `last` have messages. */
  private def fewSlices(first: Int, last: Int): Boolean = {
    var (s, n) = (first, 1)
    while (n <= DirectFold && s >= 0 && s <= last) {
      s = slices.nextTouched(s + 1)
      n += 1
    }
    s < 0 || s > last
  }

  /** The merge of the buffers of the slices with messages from `first` to `last`. */
  private def fold(first: Int, last: Int): InternalRow = {
    buffers.reset(sum)
    var s = first
    while (s >= 0 && s <= last) {
      slices.pointTo(s, slice)
      buffers.update(sum, slice)
      s = slices.nextTouched(s + 1)
    }
    sum
  }

  override def hasNext: Boolean = buffer != null

  override def next(): InternalRow = {
    anchorNumber.setInt(0, anchor)
    val row = toRow(joined(anchorNumber, buffer))
    advance()
    row
  }
}

private[execution] object AnchorPartials {

  /**
   * Up to this many slices with messages an interval is folded directly: a range query costs
   * about 2 log2 n merges, 30 for 30,000 slices, besides building the tree.
   */
  final val DirectFold = 64
}
