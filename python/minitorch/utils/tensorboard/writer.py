"""SummaryWriter (and the FileWriter under it): what a training script calls to log to TensorBoard. Events go
to tfevents files through tensorboard's own EventFileWriter, which writes on a background thread."""

import math
import os
import socket
import time
from datetime import datetime

import numpy as np
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from minitorch.utils.tensorboard import summary as _summary
from minitorch.utils.tensorboard.summary import make_np

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """One event file in `log_dir`, written asynchronously (queued up to max_queue events, flushed every
    flush_secs seconds and on flush()/close())."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Writes an Event, stamped with the wall time (now by default) and step."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Writes a Summary as an Event."""
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def, walltime=None):
        """Writes a GraphDef as an Event."""
        self.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self):
        """Writes pending events to disk."""
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file."""
        self.event_writer.close()

    def reopen(self):
        """Opens a new event file after close()."""
        self.event_writer.reopen()


def _default_bins():
    # TensorFlow's: 1e-12 growing by 10% up to 1e20, mirrored to the negatives, and 0
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-b for b in reversed(pos)] + [0] + pos


class SummaryWriter:
    """Writes TensorBoard event files to `log_dir` (default runs/<Mon DD_HH-MM-SS>_<hostname><comment>).

    purge_step: after a crash, hide events at or after this step from the earlier run. max_queue /
    flush_secs: how many events to hold and how often to write them. Use as a context manager or close()."""

    def __init__(
        self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""
    ):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The main FileWriter, made again after close() so a closed writer can keep logging."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory the event files go to."""
        return self.log_dir

    # ---- scalars and tensors

    def add_scalar(
        self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False
    ):
        """One number (a float, an int, a NumPy scalar or a one-element tensor) at `global_step`."""
        summ = _summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several numbers on one chart: each goes to its own run, log_dir/<main_tag>_<tag>, under main_tag."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + tag
            fw = self.all_writers.get(path)
            if fw is None:
                fw = self.all_writers[path] = FileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix
                )
            fw.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """A whole tensor's values (the tensor plugin)."""
        self._get_file_writer().add_summary(_summary.tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """The distribution of `values`; bins as np.histogram takes them, or 'tensorflow' (exponential)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        summ = _summary.histogram(tag, values, bins, max_bins=max_bins)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_histogram_raw(
        self,
        tag,
        min,
        max,
        num,
        sum,
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ):
        """A histogram from statistics computed elsewhere (bucket_limits: the right edges)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summ = _summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    # ---- images, figures, audio, text

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """An image: float in [0, 1] or uint8 in [0, 255], laid out as `dataformats` says (CHW, HWC, HW)."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, shown as one grid (8 per row)."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_image_with_boxes(
        self,
        tag,
        img_tensor,
        box_tensor,
        global_step=None,
        walltime=None,
        rescale=1,
        dataformats="CHW",
        labels=None,
    ):
        """An image with boxes (N x 4: xmin, ymin, xmax, ymax in pixels) drawn on it; needs Pillow."""
        if labels is not None:
            if isinstance(labels, str):
                labels = [labels]
            if len(labels) != box_tensor.shape[0]:
                labels = None
        summ = _summary.image_boxes(
            tag, img_tensor, box_tensor, rescale=rescale, dataformats=dataformats, labels=labels
        )
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, as a grid) rendered to an image; closes it unless
        close=False."""
        if isinstance(figure, list):
            self.add_image(tag, _figures_to_image(figure, close), global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, _figures_to_image(figure, close), global_step, walltime, dataformats="CHW")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """Not supported: no GIF encoder (see add_images)."""
        raise NotImplementedError(
            "add_video needs a GIF encoder (moviepy in PyTorch), which minitorch's TensorBoard writer lacks; "
            "log frames with add_images instead"
        )

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """A mono sound clip (values in [-1, 1]) at `sample_rate` Hz."""
        summ = _summary.audio(tag, snd_tensor, sample_rate=sample_rate)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A string, rendered as Markdown."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    # ---- graphs, embeddings, curves, layouts, hyperparameters

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The model's dataflow graph, from one forward call on input_to_model (a tensor or a tuple of
        them): the operations autograd recorded, grouped by the module that ran them, with the parameters
        and inputs feeding them. Operations on tensors that need no gradient (integer inputs, code under
        no_grad) are not recorded, so they do not appear."""
        from minitorch.utils.tensorboard._graph import graph_def

        self._get_file_writer().add_graph(graph_def(model, input_to_model, verbose))

    @staticmethod
    def _encode(rawstr):
        return rawstr.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")

    def add_embedding(
        self, mat, metadata=None, label_img=None, global_step=None, tag="default", metadata_header=None
    ):
        """Points for the projector: mat (N x D), optional per-point labels (metadata, a list or a list of
        rows with metadata_header) and thumbnails (label_img, N x C x H x W)."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

        mat = make_np(mat)
        step = 0 if global_step is None else global_step
        subdir = f"{str(step).zfill(5)}/{self._encode(tag)}"
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}", tensor_path=f"{subdir}/tensors.tsv")
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            if metadata_header:
                if len(metadata_header) != len(metadata[0]):
                    raise AssertionError("len of header must be equal to the number of columns in metadata")
                lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
            else:
                lines = [str(x) for x in metadata]
            with open(os.path.join(save_path, "metadata.tsv"), "wb") as f:
                f.write(("\n".join(lines) + "\n").encode())
            info.metadata_path = f"{subdir}/metadata.tsv"
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _write_sprite(make_np(label_img), os.path.join(save_path, "sprite.png"))
            info.sprite.image_path = f"{subdir}/sprite.png"
            info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        with open(os.path.join(save_path, "tensors.tsv"), "wb") as f:
            f.writelines(("\t".join(str(v.item()) for v in row) + "\n").encode() for row in mat)
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([info])
        with open(os.path.join(logdir, "projector_config.pbtxt"), "wb") as f:
            f.write(text_format.MessageToString(self._projector_config).encode())

    def add_pr_curve(
        self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None, walltime=None
    ):
        """A precision-recall curve of `predictions` (probabilities) against binary `labels`."""
        labels, predictions = make_np(labels), make_np(predictions)
        summ = _summary.pr_curve(tag, labels, predictions, num_thresholds, weights)
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        """A precision-recall curve from counts computed elsewhere (one entry per threshold)."""
        summ = _summary.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
            weights,
        )
        self._get_file_writer().add_summary(summ, global_step, walltime)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart drawing the scalars `tags` together."""
        self._get_file_writer().add_summary(_summary.custom_scalars({category: {title: ["Multiline", tags]}}))

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart of a value with its lower and upper bounds (three tags)."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self._get_file_writer().add_summary(_summary.custom_scalars({category: {title: ["Margin", tags]}}))

    def add_custom_scalars(self, layout):
        """The custom-scalars dashboard: {category: {chart title: ['Multiline', [tags]] or ['Margin',
        [value, lower, upper]]}}."""
        self._get_file_writer().add_summary(_summary.custom_scalars(layout))

    def add_mesh(
        self, tag, vertices, colors=None, faces=None, config_dict=None, global_step=None, walltime=None
    ):
        """Not supported: the 3-D mesh plugin."""
        raise NotImplementedError("add_mesh (the 3-D mesh plugin) is not supported by minitorch's writer")

    def add_onnx_graph(self, prototxt):
        """Not supported: minitorch does not use ONNX (see add_graph)."""
        raise NotImplementedError("add_onnx_graph needs ONNX, which minitorch does not use; see add_graph")

    def add_hparams(
        self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None
    ):
        """One row of the hyperparameter table: the hyperparameters and the metrics they gave, written to a
        run of their own (log_dir/<run_name>, default the current time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_name = run_name or str(time.time())
        with SummaryWriter(log_dir=os.path.join(self._get_file_writer().get_logdir(), run_name)) as w:
            for summ in (exp, ssi, sei):
                w.file_writer.add_summary(summ, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    # ---- lifetime

    def flush(self):
        """Writes every pending event to disk now."""
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()

    def close(self):
        """Flushes and closes the event files (a second close does nothing; logging again reopens)."""
        if self.all_writers is None:
            return
        for w in self.all_writers.values():
            w.flush()
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _figures_to_image(figures, close):
    """CHW uint8 RGB of a matplotlib figure (NCHW for a list), rendered with the Agg backend."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(fig):
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        if close:
            plt.close(fig)
        return np.moveaxis(rgba[:, :, :3], 2, 0)

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def _write_sprite(label_img, path):
    """The thumbnails tiled into a square PNG, as the projector expects."""
    n = label_img.shape[0]
    side = math.ceil(n**0.5)
    grid = _summary._grid(label_img, ncols=side)  # (3, rows*H, side*W)
    square = np.zeros((grid.shape[2], grid.shape[2], 3), dtype=np.float64)
    square[: grid.shape[1]] = grid.transpose(1, 2, 0)
    with open(path, "wb") as f:
        f.write(_summary._png(np.uint8((square * 255).clip(0, 255))))
