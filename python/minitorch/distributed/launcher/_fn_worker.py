"""Runs a Python callable as a launcher worker: python -m minitorch.distributed.launcher._fn_worker <call file>
<result file>. The call file holds the pickled (fn, args); the return value is pickled to the result file."""

import pickle
import sys

from minitorch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    call_path, result_path = sys.argv[1], sys.argv[2]
    with open(call_path, "rb") as f:
        fn, args = pickle.load(f)
    result = fn(*args)
    with open(result_path, "wb") as f:
        pickle.dump(result, f)


if __name__ == "__main__":
    main()
