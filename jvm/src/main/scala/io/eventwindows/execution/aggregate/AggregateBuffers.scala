package io.eventwindows.execution.aggregate

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, AttributeMap, AttributeReference, BasePredicate, BindReferences, BoundReference,
  Expression, If, JoinedRow, Literal, MutableProjection, Predicate, SpecificInternalRow,
  UnsafeProjection, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateFunction, DeclarativeAggregate, ImperativeAggregate, NoOp, TypedImperativeAggregate
}
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform

/**
 * Drives Spark's own aggregate functions over aggregation buffers that all share one layout:
 * initialize a buffer, update it with an input row, merge two buffers into a third, evaluate the
 * results. Declarative functions run as generated mutable projections over their
 * initial/update/merge/evaluate expressions, imperative ones (collect_list, percentile_approx,
 * `Aggregator` UDAFs, ...) through their own methods at their buffer offsets, as Spark's
 * `AggregationIterator` and `window.AggregateProcessor` do. Buffers of typed imperative functions
 * hold their objects, deserialized; [[serialize]] stores a buffer as bytes (those objects in the
 * functions' own serialized form, as Spark ships partial aggregates) for state that outlives a task.
 *
 * Input rows are events, or, with `partials`, rows holding partial buffers of the same functions
 * (Spark's partial aggregation output): "adding" such a row merges its buffer, as Spark's final
 * aggregation does; only declarative functions come so.
 *
 * @param functions the aggregate functions, their inputs bound to nothing yet
 * @param filters   per function, a predicate on the input row (FILTER (WHERE ...)), true if none
 * @param input     the attributes of the input rows
 * @param partials  the input columns holding partial buffers, in the functions' buffer layout;
 *                  empty when the input rows are events
 */
private[execution] final class AggregateBuffers(
    functions: Seq[AggregateFunction],
    filters: Seq[Expression],
    input: Seq[Attribute],
    partials: Seq[Attribute] = Nil) {

  private val offsets = functions.scanLeft(0)(_ + _.aggBufferAttributes.size)

  private val bufferAttributes: Seq[AttributeReference] = functions.flatMap(_.aggBufferAttributes)
  private val mergeInputAttributes: Seq[AttributeReference] =
    functions.flatMap(_.inputAggBufferAttributes)

  val bufferTypes: Array[DataType] = bufferAttributes.map(_.dataType).toArray

  /** Imperative functions at their buffer offsets, inputs bound to the input row. */
  private val imperative: Array[ImperativeAggregate] = functions.zipWithIndex.collect {
    case (f: ImperativeAggregate, i) =>
      BindReferences.bindReference(f, input)
        .withNewMutableAggBufferOffset(offsets(i))
        .withNewInputAggBufferOffset(offsets(i))
        .asInstanceOf[ImperativeAggregate]
  }.toArray
  private val imperativePositions: Array[Int] = functions.zipWithIndex.collect {
    case (_: ImperativeAggregate, i) => i
  }.toArray
  private val imperativeFilters: Array[BasePredicate] = imperativePositions.map { i =>
    Predicate.create(filters(i), input)
  }
  private val imperativeFiltered: Array[Boolean] = imperativePositions.map { i =>
    filters(i) != Literal.TrueLiteral
  }

  /** Typed imperative functions merge their deserialized buffer objects directly. */
  private val typed: Array[TypedImperativeAggregate[_]] = imperative.map {
    case t: TypedImperativeAggregate[_] => t
    case _ => null
  }

  /** The buffer offsets of the typed imperative functions' objects. */
  private val typedOffsets: Array[Int] = typed.indices.collect {
    case j if typed(j) != null => offsets(imperativePositions(j))
  }.toArray

  /** Declarative expressions of each kind, NoOp in the slots of imperative functions. */
  private def declarative(f: DeclarativeAggregate => Seq[Expression]): Seq[Expression] =
    functions.flatMap {
      case d: DeclarativeAggregate => f(d)
      case other => Seq.fill(other.aggBufferAttributes.size)(NoOp)
    }

  private val initialize = MutableProjection.create(declarative(_.initialValues), Nil)

  require(
    partials.isEmpty || imperative.isEmpty,
    s"partial buffers are merged for declarative aggregates only, got ${functions.mkString(", ")}")

  private val update = if (partials.isEmpty) {
    MutableProjection.create(
      AggregateBuffers.updateExpressions(functions, filters),
      bufferAttributes ++ input)
  } else {
    // The merge expressions read the partial buffer columns as the functions' input buffers.
    val asInputBuffers = AttributeMap(partials.zip(mergeInputAttributes))
    MutableProjection.create(
      declarative(_.mergeExpressions),
      bufferAttributes ++ input.map(a => asInputBuffers.getOrElse(a, a)))
  }

  /**
   * `target := left merged with right` for declarative functions in one projection: the merge
   * expressions read the left buffer as the buffer and the right one as the input buffer.
   */
  private val combine =
    MutableProjection.create(
      declarative(_.mergeExpressions),
      bufferAttributes ++ mergeInputAttributes)

  private val evaluate = MutableProjection.create(
    functions.map {
      case d: DeclarativeAggregate => d.evaluateExpression
      case _ => NoOp
    },
    bufferAttributes)

  /** Every field of a buffer but the typed imperative objects, which [[assign]] copies itself. */
  private val assignment = MutableProjection.create(
    bufferAttributes.indices.map { i =>
      if (typedOffsets.contains(i)) NoOp
      else BoundReference(i, bufferTypes(i), bufferAttributes(i).nullable)
    },
    Nil)

  private val joined = new JoinedRow

  /** The result row `evaluate` fills: one field per function. */
  val resultTypes: Seq[DataType] = functions.map(_.dataType)
  private val results = new SpecificInternalRow(resultTypes)
  evaluate.target(results)

  /**
   * The buffers' mutable fields, copied for each new buffer: building a row from its types asks
   * SQLConf about each type, which in a task builds a new conf every time (microseconds a field).
   */
  private val template = new SpecificInternalRow(bufferTypes.toIndexedSeq)

  /**
   * True if every buffer field is fixed-width and updatable in an `UnsafeRow` (the test of Spark's
   * hash aggregation): buffers can then live as bytes ([[BufferArray]]).
   */
  val fixedWidth: Boolean = bufferTypes.forall(UnsafeRow.isMutable)

  /** The initial buffer as an `UnsafeRow`'s words; only for fixed-width layouts. */
  def initialWords: Array[Long] = {
    require(fixedWidth, "only fixed-width buffers are stored as bytes")
    val bytes = UnsafeProjection.create(bufferTypes).apply(newBuffer()).getBytes
    val words = new Array[Long](bytes.length / 8)
    Platform.copyMemory(
      bytes,
      Platform.BYTE_ARRAY_OFFSET,
      words,
      Platform.LONG_ARRAY_OFFSET,
      bytes.length)
    words
  }

  /**
   * The size reserved for a buffer kept as objects: the row, its value array and a boxed value
   * per field (what the objects of imperative functions grow to is not measured).
   */
  val estimatedObjectBytes: Long = 48L + 32L * bufferTypes.length

  /** A new buffer holding the initial values. */
  def newBuffer(): InternalRow = {
    val buffer = new SpecificInternalRow(template.values.map(_.copy()))
    reset(buffer)
    buffer
  }

  /** Sets `buffer` back to the initial values. */
  def reset(buffer: InternalRow): Unit = {
    initialize.target(buffer)(InternalRow.empty)
    var i = 0
    while (i < imperative.length) {
      imperative(i).initialize(buffer)
      i += 1
    }
  }

  /** Adds one input row to `buffer`. */
  def update(buffer: InternalRow, row: InternalRow): Unit = {
    update.target(buffer)(joined(buffer, row))
    var i = 0
    while (i < imperative.length) {
      if (!imperativeFiltered(i) || imperativeFilters(i).eval(row)) {
        imperative(i).update(buffer, row)
      }
      i += 1
    }
  }

  /**
   * Sets `target` to the merge of `left` and `right` (in that order), leaving both as they were.
   * One projection for the declarative functions; imperative ones start from their initial
   * buffer and merge both sides.
   */
  def combine(target: InternalRow, left: InternalRow, right: InternalRow): Unit = {
    combine.target(target)(joined(left, right))
    var i = 0
    while (i < imperative.length) {
      imperative(i).initialize(target)
      mergeImperative(i, target, left)
      mergeImperative(i, target, right)
      i += 1
    }
  }

  /**
   * Merges `other` into `buffer`, on its right, leaving `other` as it was, as Spark's aggregation
   * iterators merge partial buffers into theirs: one projection over both for the declarative
   * functions (it reads every field before it writes any), the imperative ones through their own
   * merge.
   */
  def merge(buffer: InternalRow, other: InternalRow): Unit = {
    combine.target(buffer)(joined(buffer, other))
    var i = 0
    while (i < imperative.length) {
      mergeImperative(i, buffer, other)
      i += 1
    }
  }

  /**
   * Sets `buffer` to the values of `other` (typed imperative objects by reference), which it then
   * continues exactly: no merge, whose floating-point arithmetic could round otherwise.
   */
  def assign(buffer: InternalRow, other: InternalRow): Unit = {
    assignment.target(buffer)(other)
    typedOffsets.foreach(o => buffer.update(o, other.get(o, bufferTypes(o))))
  }

  /** Merges imperative function i's buffer in `other` into its buffer in `buffer`. */
  private def mergeImperative(i: Int, buffer: InternalRow, other: InternalRow): Unit =
    if (typed(i) != null) typed(i).mergeBuffersObjects(buffer, other)
    else imperative(i).merge(buffer, other)

  /** The fields of a buffer as bytes can hold them: typed imperative objects serialized. */
  private val storable = new SpecificInternalRow(bufferTypes.toIndexedSeq)
  private val toUnsafe = UnsafeProjection.create(bufferTypes)

  /**
   * `buffer` as bytes that [[deserialize]] reads back, leaving `buffer` as it was: the fields as an
   * `UnsafeRow` of the buffer types, the objects of typed imperative functions as their own
   * `serialize` writes them (in place of a copy of the buffer, as Spark does before a shuffle).
   */
  def serialize(buffer: InternalRow): Array[Byte] = {
    copyFields(buffer, storable)
    var j = 0
    while (j < typed.length) {
      if (typed(j) != null) typed(j).serializeAggregateBufferInPlace(storable)
      j += 1
    }
    // The projection's row and buffer are reused: copy, so the bytes are this buffer's own.
    toUnsafe(storable).copy().getBytes
  }

  /** A new buffer holding what [[serialize]] stored in `bytes` (which it may share). */
  def deserialize(bytes: Array[Byte]): InternalRow = {
    val stored = new UnsafeRow(bufferTypes.length)
    stored.pointTo(bytes, bytes.length)
    val buffer = new SpecificInternalRow(bufferTypes.toIndexedSeq)
    copyFields(stored, buffer)
    var j = 0
    while (j < typed.length) {
      if (typed(j) != null) {
        val offset = offsets(imperativePositions(j))
        buffer.update(offset, typed(j).deserialize(stored.getBinary(offset)))
      }
      j += 1
    }
    buffer
  }

  /** Copies every buffer field of `from` into `to` (objects by reference). */
  private def copyFields(from: InternalRow, to: InternalRow): Unit = {
    var i = 0
    while (i < bufferTypes.length) {
      to.update(i, from.get(i, bufferTypes(i)))
      i += 1
    }
  }

  /** The results of every function over `buffer`; the row is reused by the next call. */
  def results(buffer: InternalRow): InternalRow = {
    evaluate(buffer)
    var i = 0
    while (i < imperative.length) {
      results.update(imperativePositions(i), imperative(i).eval(buffer))
      i += 1
    }
    results
  }
}

private[execution] object AggregateBuffers {

  /**
   * The new buffer values after an input row, over the functions' buffers (in their layout) and
   * the row: each declarative function's update expressions, which keep its buffer where the row
   * fails its FILTER; NoOp in the slots of imperative functions, which update through their own
   * methods.
   */
  def updateExpressions(
      functions: Seq[AggregateFunction],
      filters: Seq[Expression]): Seq[Expression] =
    functions.zip(filters).flatMap {
      case (d: DeclarativeAggregate, filter) if filter != Literal.TrueLiteral =>
        d.updateExpressions.zip(d.aggBufferAttributes).map { case (e, a) => If(filter, e, a) }
      case (d: DeclarativeAggregate, _) => d.updateExpressions
      case (other, _) => Seq.fill(other.aggBufferAttributes.size)(NoOp)
    }
}
