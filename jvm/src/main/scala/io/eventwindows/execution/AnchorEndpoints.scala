package io.eventwindows.execution

import java.util.{Arrays, HashMap => JHashMap}

import scala.collection.mutable.ArrayBuilder

import io.eventwindows.plans.Bounds

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, MutableProjection, SpecificInternalRow, UnsafeArrayData, UnsafeProjection, UnsafeRow}

import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode
import org.apache.spark.sql.types.{ArrayType, ByteType, DataType, DateType, IntegerType, LongType, ShortType, StructField, StructType, TimestampNTZType, TimestampType}

/**
 * The slice boundaries of dynamic windows, per key: the sorted distinct instants at which some
 * anchor's interval of that key begins or ends, so that each interval is a run of whole slices.
 * A slice runs from one boundary to the next; a message belongs to the slice of the greatest
 * boundary of its key at or before its time.
 *
 * The keys are numbered (ordinals) and their boundaries lie end to end in one array, so a slice
 * is a dense number (the index of its boundary) that can address an array of buffers. Keys are
 * looked up as UnsafeRows of the key columns (NULL keys equal) or, for one integral key column,
 * by value without building a row.
 */
final class AnchorEndpoints private (
    keyRows: Array[UnsafeRow],
    byValue: Option[LongOrdinals],
    boundaries: Array[Long],
    firstSlices: Array[Int]) {

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

  /** The key of a slice's ordinal. */
  def keyRow(ordinal: Int): UnsafeRow = keyRows(ordinal)

  /** The ordinal of the key of a slice. */
  def ordinalOfSlice(slice: Int): Int = {
    val i = Arrays.binarySearch(firstSlices, slice)
    // Keys have at least one slice, so no two first slices are equal.
    if (i >= 0) i else -i - 2
  }
}

object AnchorEndpoints {

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
   * The first instant in an interval with these ends (inclusive per `bounds`) and the first
   * instant after it, as slice boundaries; an end beyond the time line has no boundary (no slice
   * needs to end there). Ticks are integers, so `(s` is `[s + 1` and `e]` is `e + 1)`.
   */
  def boundaries(start: Long, end: Long, bounds: Bounds): Seq[Long] = {
    val first = if (bounds.lowerInclusive) Some(start)
      else if (start == Long.MaxValue) None else Some(start + 1)
    val after = if (!bounds.upperInclusive) Some(end)
      else if (end == Long.MaxValue) None else Some(end + 1)
    first.toSeq ++ after
  }

  /**
   * Reads the broadcast rows of [[AnchorEndpointsMode]] (a struct of the keys, an array of the
   * boundaries), once per task: the keys are projected again, as the messages' keys are, so that
   * equal keys are equal UnsafeRows.
   */
  final class Reader(keyTypes: Seq[DataType]) extends Serializable {
    def read(broadcast: Any): AnchorEndpoints = {
      val rows = broadcast.asInstanceOf[Array[InternalRow]]
      val keyOf = UnsafeProjection.create(keyTypes.zipWithIndex.map { case (t, i) =>
        BoundReference(i, t, nullable = true)
      })
      val keyRows = rows.map(row => keyOf(row.getStruct(0, keyTypes.size)).copy())
      val values = if (!byValue(keyTypes)) None else Some(new LongOrdinals(keyRows.map { row =>
        if (row.isNullAt(0)) None else Some(row.get(0, keyTypes.head) match {
          case n: java.lang.Number => n.longValue
        })
      }))
      val points = rows.map(_.getArray(1).toLongArray())
      new AnchorEndpoints(keyRows, values, points.flatten, points.scanLeft(0)(_ + _.length))
    }
  }
}

/**
 * Broadcasts the anchors' interval ends as one row per key: the keys (a struct) and the key's
 * slice boundaries (sorted, distinct), which [[AnchorEndpoints.Reader]] reads. `keys`, `start`
 * and `end` are bound to the anchor rows. Anchors with a NULL start or end, or an end before the
 * start, add no boundary: the window operator rejects them, naming the row. A row array is what
 * Spark's broadcast exchange takes besides its own hash relations.
 */
case class AnchorEndpointsMode(
    keys: Seq[Expression],
    start: Expression,
    end: Expression,
    bounds: Bounds) extends BroadcastMode {

  override def transform(rows: Array[InternalRow]): Array[InternalRow] =
    transform(rows.iterator, None)

  override def transform(
      rows: Iterator[InternalRow],
      sizeHint: Option[Long]): Array[InternalRow] = {
    val keyOf = UnsafeProjection.create(keys)
    val interval = MutableProjection.create(Seq(start, end))
      .target(new SpecificInternalRow(Seq(LongType, LongType)))
    val points = new JHashMap[UnsafeRow, ArrayBuilder.ofLong]()
    rows.foreach { row =>
      val ends = interval(row)
      if (!ends.isNullAt(0) && !ends.isNullAt(1) && ends.getLong(0) <= ends.getLong(1)) {
        val key = keyOf(row)
        var builder = points.get(key)
        if (builder == null) {
          builder = new ArrayBuilder.ofLong
          points.put(key.copy(), builder)
        }
        AnchorEndpoints.boundaries(ends.getLong(0), ends.getLong(1), bounds).foreach(builder += _)
      }
    }
    val keyStruct = StructType(keys.zipWithIndex.map { case (k, i) =>
      StructField(s"k$i", k.dataType)
    })
    val toRow = UnsafeProjection.create(Seq(BoundReference(0, keyStruct, nullable = false),
      BoundReference(1, ArrayType(LongType, containsNull = false), nullable = false)))
    val out = new Array[InternalRow](points.size)
    var i = 0
    points.forEach { (key, builder) =>
      val sorted = builder.result()
      if (sorted.nonEmpty) {  // `(MAX, MAX]` has no boundary, and a key needs one
        Arrays.sort(sorted)
        out(i) = toRow(InternalRow(key, UnsafeArrayData.fromPrimitiveArray(sorted.distinct)))
          .copy()
        i += 1
      }
    }
    out.take(i)
  }

  override def canonicalized: BroadcastMode =
    copy(keys = keys.map(_.canonicalized), start = start.canonicalized, end = end.canonicalized)
}
