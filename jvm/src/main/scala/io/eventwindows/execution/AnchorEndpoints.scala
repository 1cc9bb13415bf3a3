package io.eventwindows.execution

import java.util.{Arrays, HashMap => JHashMap}

import scala.collection.mutable.ArrayBuilder

import io.eventwindows.plans.Bounds

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, MutableProjection, SpecificInternalRow, UnsafeArrayData, UnsafeProjection, UnsafeRow}

import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, StructField, StructType}

/**
 * The slice boundaries of dynamic windows, per key: the sorted distinct instants at which some
 * anchor's interval of that key begins or ends, so that each interval is a run of whole slices.
 * A slice runs from one boundary to the next; a message belongs to the slice of the greatest
 * boundary at or before its time. Keys are the UnsafeRows of the key columns (NULL keys equal).
 */
final class AnchorEndpoints private (byKey: JHashMap[UnsafeRow, Array[Long]]) {

  /** The boundaries of the key, or null when the key has no anchor. */
  def pointsOf(key: UnsafeRow): Array[Long] = byKey.get(key)
}

object AnchorEndpoints {

  /** The index of the greatest point at or before `time`, or -1 if all are after it. */
  def floor(points: Array[Long], time: Long): Int = {
    val i = Arrays.binarySearch(points, time)
    if (i >= 0) i else -i - 2
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
      val byKey = new JHashMap[UnsafeRow, Array[Long]](rows.length * 2)
      rows.foreach { row =>
        byKey.put(keyOf(row.getStruct(0, keyTypes.size)).copy(), row.getArray(1).toLongArray())
      }
      new AnchorEndpoints(byKey)
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
      Arrays.sort(sorted)
      out(i) = toRow(InternalRow(key, UnsafeArrayData.fromPrimitiveArray(sorted.distinct))).copy()
      i += 1
    }
    out
  }

  override def canonicalized: BroadcastMode =
    copy(keys = keys.map(_.canonicalized), start = start.canonicalized, end = end.canonicalized)
}
