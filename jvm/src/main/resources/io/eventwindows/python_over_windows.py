"""What Spark's Python workers run around a user's function over event windows.

`io.eventwindows.analysis.PythonOverWindows` sends a Python UDF's pickled command, with this
source, as a command of its own: unpickled in a worker, it runs this source and returns
`wrap(command, ...)`, the user's function wrapped as below and its return type, the pair Spark's
worker reads from every command. The wrappers only take away what the plan adds to each group of
rows (whether its window has events, and the window's number in the partition) and pass the
rest as it comes, so the user's function sees each window as it sees a group of Spark's own.
"""

import inspect
import itertools
import pickle


def _command(command):
    """The user's (function, return type): a command above Spark's broadcast threshold comes
    as a broadcast holding the pickled command, as Spark's worker reads it."""
    value = pickle.loads(command)
    if not isinstance(value, tuple):
        value = pickle.loads(value.value)
    return value


def _has_events(column):
    """The `present` flag of a window's rows (a pandas Series or an Arrow array), one value."""
    value = column.iloc[0] if hasattr(column, "iloc") else column[0].as_py()
    return bool(value)


def _none_of(values):
    """`values` (a Series, an Arrow array, a DataFrame) without its rows."""
    return values.iloc[:0] if hasattr(values, "iloc") else values.slice(0, 0)


def _takes_batches(eval_type):
    """True for the grouped-aggregate UDFs over an iterator of batches (pandas or Arrow)."""
    from pyspark.util import PythonEvalType

    return eval_type in {
        getattr(PythonEvalType, name, None)
        for name in ("SQL_GROUPED_AGG_PANDAS_ITER_UDF", "SQL_GROUPED_AGG_ARROW_ITER_UDF")
    }


def aggregate(command, eval_type, arguments):
    """A grouped-aggregate UDF whose first argument is the window's `present` flag: over a window
    without events (one row of NULL arguments) it is called with every argument empty, as Spark
    calls it over an empty window frame. A UDF of `eval_type` that takes an iterator of batches
    gets them as it would without the flag: of one Series (or Arrow array) if it has one of its
    own `arguments`, else of a tuple."""
    f, return_type = _command(command)

    def over_window(present, *args, **kwargs):
        if _has_events(present):
            return f(*args, **kwargs)
        return f(*map(_none_of, args), **{k: _none_of(v) for k, v in kwargs.items()})

    def over_batches(batches):
        batches = iter(batches)
        first = next(batches)  # a window without events has only this one, of one row
        has_events = _has_events(first[0])

        def user(batch):
            values = batch[1:] if has_events else tuple(map(_none_of, batch[1:]))
            return values[0] if arguments == 1 else values

        return f(map(user, itertools.chain([first], batches)))

    return (over_batches if _takes_batches(eval_type) else over_window), return_type


def apply(command):
    """A grouped-map function (`applyInPandas`) whose key starts with the window's number in its
    partition and `present` flag: it gets the rest of the key, as documented, and over a window
    without events its data without rows (a DataFrame, or an iterator of one). The wrapper's
    signature has the key, so Spark's worker always gives it one; the user's function gets it if
    it takes two arguments, as Spark's worker decides."""
    f, return_type = _command(command)
    takes_key = len(inspect.getfullargspec(f).args) == 2

    def with_key(key, data):
        if not key[1]:
            data = _none_of(data) if hasattr(data, "iloc") else iter([_none_of(next(data))])
        return f(key[2:], data) if takes_key else f(data)

    return with_key, return_type
