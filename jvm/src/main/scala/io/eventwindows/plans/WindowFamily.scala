package io.eventwindows.plans

/**
 * The parameters of one window family, as planned. The run-time behaviour of each family lives in
 * its [[WindowAxis]]; everything here is plain data, so the logical
 * node, the physical operator and `explain()` can all carry and show it.
 */
sealed trait WindowFamily extends Product with Serializable {
  /** The SQL function that builds this family. */
  def functionName: String
}

/** What a hopping or tumbling window emits for each of its windows. */
sealed abstract class OutputPolicy(val sqlName: String) extends Serializable {
  override def toString: String = sqlName
}

object OutputPolicy {
  /** StreamInsight's ClipToWindowEnd: one row per non-empty window, lifetime = the window. */
  case object Window extends OutputPolicy("window")

  /** StreamInsight's PointAlignToWindowEnd: a point event at the end of each non-empty window. */
  case object Point extends OutputPolicy("point")

  /**
   * Seed 000's HoppingWindow2: one row per run of consecutive windows with the same events,
   * planned as snapped lifetimes feeding a snapshot window.
   */
  case object Changes extends OutputPolicy("changes")

  val all: Seq[OutputPolicy] = Seq(Window, Point, Changes)

  def apply(name: String): OutputPolicy = all.find(_.sqlName == name).get
}

/**
 * Hopping windows `[alignment + n*hop, alignment + n*hop + size)` for every integer n; tumbling
 * when `hop == size`. All times are ticks of the time column's type. `horizon` is the last tick
 * that open-ended events cover under a per-window policy (None: the latest finite time of the
 * input).
 */
case class Hopping(
    size: Long,
    hop: Long,
    alignment: Long,
    output: OutputPolicy,
    horizon: Option[Long]) extends WindowFamily {
  override def functionName: String = if (hop == size) "tumbling_window" else "hopping_window"
}

/** Windows between consecutive distinct event endpoints, holding the events active there. */
case object Snapshot extends WindowFamily {
  override def functionName: String = "snapshot_window"
}
