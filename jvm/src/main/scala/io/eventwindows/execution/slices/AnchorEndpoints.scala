package io.eventwindows.execution.slices

import java.lang.{Long => JLong}
import java.util.{Arrays, HashMap => JHashMap}

import scala.collection.mutable.{ArrayBuffer, ArrayBuilder}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  BoundReference, Expression, MutableProjection, SpecificInternalRow, UnsafeArrayData,
  UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{
  ArrayType, ByteType, DataType, DateType, IntegerType, LongType, ShortType, StringType,
  StructField, StructType, TimestampNTZType, TimestampType
}
import org.apache.spark.unsafe.types.UTF8String

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.CheckedAnchorStart
import io.eventwindows.plans.{AnchorWindow, Bounds}

/**
 * The slice boundaries of dynamic windows, per key: the sorted distinct instants at which some
 * anchor's interval of that key begins or ends, so that each interval is a run of whole slices.
 * A slice runs from one boundary to the next; a message belongs to the slice of the greatest
 * boundary of its key at or before its time.
 *
 * The keys are numbered (ordinals) and their boundaries lie end to end in one array, so a slice
 * is a dense number (the index of its boundary) that can address an array of buffers. Keys are
 * looked up as UnsafeRows of the key columns (NULL keys equal) or, for one integral key column,
 * by value without building a row. When the anchors themselves are broadcast, each one's interval
 * is known as a run of slices, `firstSliceOf(a)` to `lastSliceOf(a)`, a the anchor's number.
 */
private[slices] final class AnchorEndpoints private (
    keyRows: Array[UnsafeRow],
    byValue: Option[LongOrdinals],
    boundaries: Array[Long],
    firstSlices: Array[Int],
    anchorFirstSlices: Array[Int],
    anchorLastSlices: Array[Int]) {

  private val byRow = new JHashMap[UnsafeRow, Integer](keyRows.length * 2)
  keyRows.indices.foreach(i => byRow.put(keyRows(i), i))
  private val directory = new SliceDirectory(boundaries, firstSlices)

  /** The number of keys (with at least one boundary each). */
  def keyCount: Int = keyRows.length

  /** The number of slices of all keys. */
  def sliceCount: Int = boundaries.length

  /** The ordinal of the key, or -1 if no anchor has it. */
  def ordinalOf(key: UnsafeRow): Int = {
    val i = byRow.get(key)
    if (i == null) -1 else i
  }

  /**
   * The ordinal of a key of one integral column ([[AnchorEndpoints.byValue]]), widened to a
   * long, or -1.
   */
  def ordinalOfValue(key: Long): Int = byValue.get.ordinalOf(key)

  /** The ordinal of the NULL key of one integral column, or -1. */
  def ordinalOfNull: Int = byValue.get.ordinalOfNull

  /** The slice of a time in the key, or -1 if it is before the key's first boundary. */
  def sliceOf(ordinal: Int, time: Long): Int = directory.floor(ordinal, time)

  /** The first instant of a slice. */
  def sliceStart(slice: Int): Long = boundaries(slice)

  /** The number of anchors whose slices are known (none unless the anchors were broadcast). */
  def anchorCount: Int = anchorFirstSlices.length

  /** The first slice of anchor `a`'s interval. */
  def firstSliceOf(a: Int): Int = anchorFirstSlices(a)

  /** The last slice of anchor `a`'s interval, before the first if the interval holds no instant. */
  def lastSliceOf(a: Int): Int = anchorLastSlices(a)
}

private[slices] object AnchorEndpoints {

  /**
   * True if keys of these types are looked up by value (`ordinalOfValue`): one column whose
   * values are integers that a long holds.
   */
  def byValue(keyTypes: Seq[DataType]): Boolean = keyTypes match {
    case Seq(ByteType | ShortType | IntegerType | DateType | LongType | TimestampType |
        TimestampNTZType) => true
    case _ => false
  }

  /**
   * The first instant of an interval that starts at `start` (inclusive per `bounds`), or None if
   * there is none (`(MAX`). Ticks are integers, so `(s` is `[s + 1`.
   */
  def firstInstant(start: Long, bounds: Bounds): Option[Long] =
    if (bounds.lowerInclusive) Some(start)
    else if (start == Long.MaxValue) None else Some(start + 1)

  /**
   * The first instant after an interval that ends at `end` (inclusive per `bounds`), or None if
   * it ends with the time line (`MAX]`). Ticks are integers, so `e]` is `e + 1)`.
   */
  def instantAfter(end: Long, bounds: Bounds): Option[Long] =
    if (!bounds.upperInclusive) Some(end) else if (end == Long.MaxValue) None else Some(end + 1)

  /**
   * The slice boundaries of an interval with these ends: its first instant and the first instant
   * after it; an end beyond the time line has no boundary (no slice needs to end there).
   */
  def boundaries(start: Long, end: Long, bounds: Bounds): Seq[Long] =
    firstInstant(start, bounds).toSeq ++ instantAfter(end, bounds)

  /**
   * Reads the broadcast of [[AnchorEndpointsMode]] once per task: the keys are projected again,
   * as the messages' keys are, so that equal keys are equal UnsafeRows.
   */
  final class Reader(keyTypes: Seq[DataType]) extends Serializable {
    def read(broadcast: Any): AnchorEndpoints = {
      val layout = broadcast.asInstanceOf[Array[InternalRow]].head
      if (!layout.isNullAt(5))
        throw EventWindowsErrors.invalidInput(layout.getUTF8String(5).toString)
      val keyOf = UnsafeProjection.create(keyTypes.zipWithIndex.map { case (t, i) =>
        BoundReference(i, t, nullable = true)
      })
      val keys = layout.getArray(0)
      val keyRows = Array.tabulate(keys.numElements())(i =>
        keyOf(keys.getStruct(i, keyTypes.size)).copy())
      val values = if (!byValue(keyTypes)) None
      else Some(new LongOrdinals(keyRows.map { row =>
        if (row.isNullAt(0)) None
        else Some(row.get(0, keyTypes.head) match {
          case n: java.lang.Number => n.longValue
        })
      }))
      new AnchorEndpoints(
        keyRows,
        values,
        layout.getArray(1).toLongArray(),
        layout.getArray(2).toIntArray(),
        layout.getArray(3).toIntArray(),
        layout.getArray(4).toIntArray())
    }
  }
}

/**
 * Broadcasts the anchors' slices, which [[AnchorEndpoints.Reader]] reads: first one row holding,
 * as arrays, the keys (structs) with at least one boundary, every key's sorted distinct slice
 * boundaries end to end, the index of each key's first boundary (and their count), and for each
 * anchor its first and last slice. With `anchor` (the anchor's own columns), the anchors' rows
 * themselves follow, anchor i at i + 1, ordered by start, end and then their bytes, so that two
 * broadcasts of the same rows number them alike whatever order the rows came in; an anchor with a
 * NULL start or end, or an end before its start, is then an error naming it, carried in the
 * layout row (the smallest such message) and raised by every task that reads the broadcast:
 * raised while building the broadcast, it would fail each query stage that reuses the broadcast
 * with the same exception, which Spark's adaptive execution reports as an internal error
 * (`STAGE_MATERIALIZATION_MULTIPLE_FAILURES`) when two stages fail together. Without `anchor`,
 * such anchors add no boundary (the window operator rejects them) and no anchor range is kept.
 * `keys`, `start`, `end` and `anchor` are bound to the anchor rows. A row array is what Spark's broadcast exchange takes besides its
 * own hash relations.
 *
 * Its cost: every executor holds every anchor's row and three numbers per anchor (with `anchor`),
 * bounded by `spark.sql.autoBroadcastJoinThreshold`, as a broadcast join's build side is.
 */
private[slices] case class AnchorEndpointsMode(
    keys: Seq[Expression],
    start: Expression,
    end: Expression,
    bounds: Bounds,
    anchor: Option[Expression]) extends BroadcastMode {

  override def transform(rows: Array[InternalRow]): Array[InternalRow] =
    transform(rows.iterator, None)

  override def transform(
      rows: Iterator[InternalRow],
      sizeHint: Option[Long]): Array[InternalRow] = {
    val keyOf = UnsafeProjection.create(keys)
    val interval = MutableProjection.create(Seq(start, end))
      .target(new SpecificInternalRow(Seq(LongType, LongType)))
    val valid = ArrayBuffer.empty[AnchorEndpointsMode.Anchor]
    var rejection: String = null
    rows.foreach { row =>
      val ends = interval(row)
      if (!ends.isNullAt(0) && !ends.isNullAt(1) && ends.getLong(0) <= ends.getLong(1)) {
        valid += AnchorEndpointsMode.Anchor(
          keyOf(row).copy(),
          ends.getLong(0),
          ends.getLong(1),
          if (anchor.isEmpty) null else row.asInstanceOf[UnsafeRow].copy())
      } else if (anchor.isDefined) {
        val message = CheckedAnchorStart.rejectionMessage(
          AnchorWindow(bounds),
          anchor.get.dataType,
          anchor.get.eval(row),
          start.dataType,
          start.eval(row),
          end.eval(row))
        // The smallest, so that the error does not depend on the order the rows came in.
        if (rejection == null || message < rejection) rejection = message
      }
    }
    val anchors =
      if (anchor.isEmpty) valid.toArray else valid.toArray.sorted(AnchorEndpointsMode.order)

    // Each key's sorted distinct boundaries; keys without any (only `(MAX, ...` intervals) are
    // left out: no message of theirs is in a window.
    val perKey = new JHashMap[UnsafeRow, ArrayBuilder.ofLong]()
    anchors.foreach { a =>
      var builder = perKey.get(a.key)
      if (builder == null) {
        builder = new ArrayBuilder.ofLong
        perKey.put(a.key, builder)
      }
      AnchorEndpoints.boundaries(a.start, a.end, bounds).foreach(builder += _)
    }
    val keyRows = ArrayBuffer.empty[UnsafeRow]
    val points = ArrayBuffer.empty[Array[Long]]
    perKey.forEach { (key, builder) =>
      val sorted = builder.result()
      if (sorted.nonEmpty) {
        Arrays.sort(sorted)
        keyRows += key
        points += sorted.distinct
      }
    }
    val firstSlices = points.scanLeft(0)(_ + _.length).toArray
    val boundaries = points.toArray.flatten

    // Each anchor's slices, first to last (last < first: none).
    val ordinals = new JHashMap[UnsafeRow, Integer]()
    keyRows.indices.foreach(o => ordinals.put(keyRows(o), o))
    val (firstOfAnchor, lastOfAnchor) = if (anchor.isEmpty) (Array.empty[Int], Array.empty[Int])
    else anchors.map { a =>
      val o = ordinals.get(a.key)
      def slice(instant: Long): Int =
        Arrays.binarySearch(boundaries, firstSlices(o), firstSlices(o + 1), instant)
      AnchorEndpoints.firstInstant(a.start, bounds) match {
        case None => (0, -1)
        case Some(first) => (
            slice(first),
            AnchorEndpoints.instantAfter(a.end, bounds).map(slice(_) - 1)
              .getOrElse(firstSlices(o + 1) - 1))
      }
    }.unzip

    val keyStruct = StructType(keys.zipWithIndex.map { case (k, i) =>
      StructField(s"k$i", k.dataType)
    })
    val layout = UnsafeProjection.create(Seq(
      BoundReference(0, ArrayType(keyStruct, containsNull = false), nullable = false),
      BoundReference(1, ArrayType(LongType, containsNull = false), nullable = false),
      BoundReference(2, ArrayType(IntegerType, containsNull = false), nullable = false),
      BoundReference(3, ArrayType(IntegerType, containsNull = false), nullable = false),
      BoundReference(4, ArrayType(IntegerType, containsNull = false), nullable = false),
      BoundReference(5, StringType, nullable = true)))
    val header = layout(InternalRow(
      new GenericArrayData(keyRows.toArray[Any]),
      UnsafeArrayData.fromPrimitiveArray(boundaries),
      UnsafeArrayData.fromPrimitiveArray(firstSlices),
      UnsafeArrayData.fromPrimitiveArray(firstOfAnchor),
      UnsafeArrayData.fromPrimitiveArray(lastOfAnchor),
      if (rejection == null) null else UTF8String.fromString(rejection))).copy()
    // Anchor a at AnchorEndpointsMode.anchorRow(_, a).
    header +: (if (anchor.isEmpty) Array.empty[InternalRow] else anchors.map(_.row))
  }

  override def canonicalized: BroadcastMode =
    copy(
      keys = keys.map(_.canonicalized),
      start = start.canonicalized,
      end = end.canonicalized,
      anchor = anchor.map(_.canonicalized))
}

private[slices] object AnchorEndpointsMode {

  /** The row of anchor number `a` in the broadcast `rows` (with the anchors' rows). */
  def anchorRow(rows: Array[InternalRow], a: Int): InternalRow = rows(a + 1)

  /** A valid anchor: its key, interval ends and (when broadcast) its row. */
  private final case class Anchor(key: UnsafeRow, start: Long, end: Long, row: UnsafeRow)

  /** By start, end, then the row's bytes: an order of the rows alone, not of their arrival. */
  private val order: Ordering[Anchor] = (a: Anchor, b: Anchor) => {
    val bySpan = JLong.compare(a.start, b.start) match {
      case 0 => JLong.compare(a.end, b.end)
      case c => c
    }
    if (bySpan != 0) bySpan else Arrays.compare(a.row.getBytes, b.row.getBytes)
  }
}
