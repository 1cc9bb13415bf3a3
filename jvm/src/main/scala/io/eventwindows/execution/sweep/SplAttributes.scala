package io.eventwindows.execution.sweep

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, Cast, Expression, MutableProjection, SpecificInternalRow, UnscaledValue
}
import org.apache.spark.sql.types._

import io.eventwindows.errors.EventWindowsErrors
import io.eventwindows.expressions.{DeltaUnits, SplPolicies}
import io.eventwindows.plans.SplPolicy
import io.eventwindows.time.TimeArithmetic

/**
 * The columns the SPL policies of a window read from each tuple, one slot per policy that reads
 * one (the window marker's `values`, in order): a delta policy's attribute as exact whole units
 * (integers, unscaled decimals, microseconds: a BIGINT) or a DOUBLE, a punctuation column as a
 * BOOLEAN. [[read]] fails the query on a NULL, naming the policy and the row.
 */
private[sweep] final class SplAttributes(
    function: String,
    policies: Seq[(SplPolicy, Expression)],
    input: Seq[Attribute]) {

  /** The units of each delta policy's attribute (None for a punctuation column). */
  private val units: IndexedSeq[Option[DeltaUnits]] = policies.map {
    case (d: SplPolicy.Delta, attribute) =>
      Some(SplPolicies.deltaUnits(function, "policy", d, attribute.dataType))
    case _ => None
  }.toIndexedSeq

  /** The values of the tuple last [[read]]. */
  val row = new SpecificInternalRow(units.map {
    case Some(u) => if (u.exact) LongType else DoubleType
    case None => BooleanType
  })

  private val projection = MutableProjection.create(
    policies.zip(units).map {
      case ((_, attribute), Some(u)) => comparable(attribute, u)
      case ((_, column), None) => column
    },
    input).target(row)

  def isEmpty: Boolean = policies.isEmpty

  def exact(slot: Int): Boolean = units(slot).get.exact

  /** Reads the tuple's values; a NULL fails the query, naming the row. */
  def read(tuple: InternalRow): Unit = {
    projection(tuple)
    var i = 0
    while (i < units.length) {
      if (row.isNullAt(i)) {
        val what = if (units(i).isDefined) "attribute" else "punctuation column"
        throw EventWindowsErrors.invalidInput(
          s"$function: the $what of '${policies(i)._1.sql}' is NULL in the row " +
            s"${EventWindowsErrors.describeRow(tuple, input)}; filter such rows out or give them a value")
      }
      i += 1
    }
  }

  /** True if the punctuation column of `slot` is TRUE in the tuple last read. */
  def flag(slot: Int): Boolean = row.getBoolean(slot)

  /** A delta attribute of the tuple last read, kept as a reference: its exact and double forms. */
  def exactValue(slot: Int): Long = if (exact(slot)) row.getLong(slot) else 0L
  def doubleValue(slot: Int): Double = if (exact(slot)) 0.0 else row.getDouble(slot)

  /** True if the delta attribute of `slot` exceeds the reference by more than the delta. */
  def exceeds(slot: Int, referenceExact: Long, referenceDouble: Double): Boolean =
    SplAttributes.exceeds(units(slot).get, row, slot, referenceExact, referenceDouble)

  private def comparable(attribute: Expression, u: DeltaUnits): Expression =
    attribute.dataType match {
      case _: DecimalType => UnscaledValue(attribute)
      case TimestampType | TimestampNTZType | LongType => attribute
      case _ if u.exact => Cast(attribute, LongType)
      case _ => Cast(attribute, DoubleType)
    }
}

private[sweep] object SplAttributes {

  /** True if attribute `slot` of `attributes` exceeds the reference by more than the delta. */
  def exceeds(
      units: DeltaUnits,
      attributes: InternalRow,
      slot: Int,
      referenceExact: Long,
      referenceDouble: Double): Boolean =
    if (units.exact) TimeArithmetic.subtract(attributes.getLong(slot), referenceExact) >
      units.wholeDelta
    else attributes.getDouble(slot) - referenceDouble > units.doubleDelta
}
