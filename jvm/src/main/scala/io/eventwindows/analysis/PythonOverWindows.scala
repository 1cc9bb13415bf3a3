package io.eventwindows.analysis

import java.io.ByteArrayOutputStream
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets.UTF_8

import scala.io.Source

import org.apache.spark.sql.catalyst.expressions.{PythonUDAF, PythonUDF}
import org.apache.spark.sql.eventwindows.SparkInternals

/**
 * A Python function over event windows, wrapped where Spark's Python worker runs it: Spark's
 * Python operators hand a function the rows of a group, and the plan of a window adds to those
 * rows what Spark's groups cannot say (a window without events is one row, flagged; windows with
 * equal columns are told apart by their number), which the wrapper takes away again.
 *
 * Each function's command (the pickled pair of function and return type its worker reads) is
 * replaced by a pickle that, when the worker unpickles it, runs the wrappers' source
 * (`python_over_windows.py`, a resource of this jar, so the workers need nothing installed) and
 * returns `wrapper(command, arguments...)`: the user's pair, unpickled there, with the function
 * wrapped. For example [[aggregate]] of a grouped-aggregate pandas UDF `size(v)`, whose
 * arguments become `(present, v)`, gives a command whose function calls `size(v)` on a window
 * with events and `size(v[:0])`, an empty Series, on a window without, as Spark calls a UDF over
 * an empty window frame.
 *
 * The limit: the command's format (a pair of function and return type, pickled) is how Spark's
 * Python worker reads commands today, not a public API; a worker that read them otherwise would
 * need the wrappers changed. The smoke runs check it on every Spark line.
 */
private[analysis] object PythonOverWindows {

  /** The wrappers' source, run in the worker. */
  private lazy val wrappers: String = {
    val source =
      Source.fromResource("io/eventwindows/python_over_windows.py", getClass.getClassLoader)
    try source.mkString
    finally source.close()
  }

  /**
   * `udaf`, a grouped-aggregate UDF over `arguments` arguments of its own given after the
   * window's `present` flag, called with empty arguments over a window without events.
   */
  def aggregate(udaf: PythonUDAF, arguments: Int): PythonUDAF =
    SparkInternals.withPythonCommand(udaf) { command =>
      Pickle.call(wrappers, "aggregate", command, Seq(udaf.evalType, arguments))
    }

  /**
   * `udf`, the function of `applyInPandas` grouped by a window's number and `present` flag before
   * its own grouping columns: its key is its own grouping columns' values, and over a window
   * without events its data has no rows.
   */
  def apply(udf: PythonUDF): PythonUDF =
    SparkInternals.withPythonCommand(udf) { command =>
      Pickle.call(wrappers, "apply", command, Nil)
    }

  /** The few opcodes of Python's pickle protocol that call a function of a source's. */
  private object Pickle {
    private val Proto = 0x80
    private val Global = 'c'
    private val BinUnicode = 'X'
    private val BinBytes = 'B'
    private val BinInt = 'J'
    private val EmptyDict = '}'
    private val BinPut = 'q'
    private val BinGet = 'h'
    private val Mark = '('
    private val Tuple = 't'
    private val Tuple2 = 0x86
    private val Reduce = 'R'
    private val Pop = '0'
    private val Stop = '.'

    /**
     * The pickle of `namespace = {}; exec(source, namespace); namespace[function](command,
     * ints...)`.
     */
    def call(source: String, function: String, command: Array[Byte], ints: Seq[Int])
        : Array[Byte] = {
      val out = new ByteArrayOutputStream()
      def op(code: Int): Unit = out.write(code)
      def int32(n: Int): Unit =
        out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(n).array())
      def bytes(code: Int, b: Array[Byte]): Unit = { op(code); int32(b.length); out.write(b) }
      def global(module: String, name: String): Unit = {
        op(Global)
        out.write(s"$module\n$name\n".getBytes(UTF_8))
      }

      op(Proto); op(3)
      // exec(source, namespace), the namespace kept as memo 0, the result (None) dropped.
      global("builtins", "exec")
      bytes(BinUnicode, source.getBytes(UTF_8))
      op(EmptyDict); op(BinPut); op(0)
      op(Tuple2); op(Reduce); op(Pop)
      // namespace[function]
      global("operator", "getitem")
      op(BinGet); op(0)
      bytes(BinUnicode, function.getBytes(UTF_8))
      op(Tuple2); op(Reduce)
      // (command, ints...), and the call.
      op(Mark)
      bytes(BinBytes, command)
      ints.foreach { n => op(BinInt); int32(n) }
      op(Tuple); op(Reduce)
      op(Stop)
      out.toByteArray
    }
  }
}
