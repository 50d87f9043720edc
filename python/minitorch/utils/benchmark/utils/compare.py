"""Compare: many Measurements as one table per label, PyTorch's layout (rows: sub_label or stmt, grouped by
thread count and env; columns: description)."""

import collections
import enum
import math

from minitorch.utils.benchmark.utils import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    """How Compare colors cells: not at all, against the best in the column or in the row."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(segment, value, best):
    """The cell wrapped in ANSI colors by how far its median is above the best one it is compared with."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment


class _Column:
    """One description's cells: a common number format (same decimals, right-aligned) for all rows."""

    def __init__(self, grouped, time_scale, trim, highlight):
        self.grouped = grouped  # per thread group, that group's cells (None where nothing was measured)
        cells = [m for group in grouped for m in group if m is not None]
        self.trim = trim
        self.highlight = highlight and any(m.has_warnings for m in cells)
        leading = [math.ceil(math.log10(m.median / time_scale)) for m in cells]
        decimals = min(max(m.significant_figures - d, 0) for m, d in zip(cells, leading)) if trim else 1
        width = max(leading) + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def cell(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.cell(1, sigfigs, None))
        if self.trim:
            value = common.trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return self.template.format(value, note)


class _Table:
    def __init__(self, results, colorize, trim, highlight):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self.label = results[0].label
        self.colorize = colorize
        self.highlight = highlight
        self.unit, self.scale = common.select_unit(min(r.median for r in results))

        def row_key(m):
            return m.num_threads, m.env, m.as_row_name

        # rows in first-seen order within each (threads, env) group; groups ordered by thread count
        self.row_keys = common.ordered_unique(row_key(m) for m in results)
        self.row_keys.sort(key=lambda k: k[:2])
        self.col_keys = common.ordered_unique(m.description for m in results)
        row_at = {k: i for i, k in enumerate(self.row_keys)}
        col_at = {k: j for j, k in enumerate(self.col_keys)}
        self.grid = [[None] * len(self.col_keys) for _ in self.row_keys]
        for m in results:
            self.grid[row_at[row_key(m)]][col_at[m.description]] = m

        envs = {m.env for m in results}
        self.render_env = len(envs) > 1
        self.env_width = max(len(e) for e in envs) if self.render_env else 0
        # per row: its thread group, whether it opens one (a separator line), whether it shows its env
        self.row_group, self.opens_group, self.shows_env = [], [], []
        prior_threads, prior_env, group = None, "", -1
        for threads, env, _ in self.row_keys:
            opens = threads != prior_threads
            if opens:
                prior_threads, prior_env, group = threads, "", group + 1
            self.row_group.append(group)
            self.opens_group.append(opens)
            self.shows_env.append(self.render_env and env != prior_env)
            prior_env = env
        groups = range(group + 1)
        self.columns = [
            _Column(
                [
                    tuple(self.grid[i][j] for i in range(len(self.row_keys)) if self.row_group[i] == g)
                    for g in groups
                ],
                self.scale,
                trim,
                highlight,
            )
            for j in range(len(self.col_keys))
        ]

    def _row_strings(self, i):
        cells = self.grid[i]
        first = next(m for m in cells if m is not None)
        env = f"({first.env})" if self.shows_env[i] else ""
        out = ["  " + env.ljust(self.env_width + 4) + first.as_row_name]
        for m, col in zip(cells, self.columns):
            if m is None:
                out.append(col.cell(None, 1, None))
            else:
                spread = m.iqr / m.median if m.has_warnings else None
                out.append(col.cell(m.median / self.scale, m.significant_figures, spread))
        return out

    def _best_values(self, i):
        cells = self.grid[i]
        if self.colorize == Colorize.ROWWISE:
            best = min(m.median for m in cells if m is not None)
            return [best] * len(cells)
        if self.colorize == Colorize.COLUMNWISE:
            out = []
            for col in self.columns:
                medians = [m.median for m in col.grouped[self.row_group[i]] if m is not None]
                out.append(min(medians) if medians else None)
            return out
        return [None] * len(cells)

    def render(self):
        header = ["", *("" if k is None else k for k in self.col_keys)]
        body = [self._row_strings(i) for i in range(len(self.row_keys))]
        ncols = max(len(r) for r in [header, *body])
        for r in [header, *body]:
            r.extend([""] * (ncols - len(r)))
        widths = [max(len(r[c]) for r in [header, *body]) for c in range(ncols)]
        lines = ["  |  ".join(s.center(w) for s, w in zip(header, widths))]
        overall = len(lines[0])
        for i, strings in enumerate(body):
            if self.opens_group[i]:
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(overall, "-"))
            parts = [strings[0].ljust(widths[0])]
            for s, w, m, best in zip(strings[1:], widths[1:], self.grid[i], self._best_values(i)):
                s = s.center(w)
                if self.colorize != Colorize.NONE and m is not None and best is not None:
                    s = _color(s, m.median, best)
                parts.append(s)
            lines.append("  |  ".join(parts))
        title = f" {self.label or ''} ".center(overall - 2, "-")
        out = f"[{title}]\n" + "\n".join(lines) + "\n\n"
        out += f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).\n"
        if self.highlight and any(m.has_warnings for m in self.results):
            out += "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
        return out


class Compare:
    """A table of many Measurements: one block per label, a row per sub_label (or stmt), a column per
    description; replicates of the same task are pooled. print(compare) or compare.print() shows it."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        """Adds more Measurements."""
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")  # noqa: TRY004
        self._results.extend(results)

    def trim_significant_figures(self):
        """Shows each cell only to the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colors cells against the best in their column (or, rowwise=True, their row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Marks cells whose IQR is a large fraction of the median with '(! XX%)'."""
        self._highlight_warnings = True

    def print(self):
        """Prints the table(s)."""
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for m in common.Measurement.merge(self._results):
            by_label[m.label].append(m)
        return [
            _Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
            for group in by_label.values()
        ]
