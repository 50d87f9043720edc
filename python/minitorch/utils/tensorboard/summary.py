"""The Summary protocol buffers SummaryWriter writes: one builder per kind of data (scalar, histogram, image,
audio, text, tensor, PR curve, custom-scalar layout, hyperparameters), in the layouts TensorBoard's plugins
read."""

import io
import struct
import wave
import zlib

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from minitorch import _C

__all__ = [
    "audio",
    "custom_scalars",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_boxes",
    "make_histogram",
    "make_np",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "tensor_proto",
    "text",
]


def make_np(x):
    """A NumPy array of a tensor (detached, on the CPU; bfloat16 as float32), an array, or a Python scalar."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, _C.Tensor):
        t = x.detach().cpu()
        if t.dtype == _C.bfloat16:
            t = t.float()
        return t.numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def _plugin(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name, content=content))


def scalar(name, value, new_style=False, double_precision=False):
    """One number: a simple_value, or with new_style a tensor under the scalars plugin."""
    arr = make_np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and {arr.ndim} "
            "dimensions."
        )
    v = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=v)])
    proto = (
        TensorProto(double_val=[v], dtype="DT_DOUBLE")
        if double_precision
        else TensorProto(float_val=[v], dtype="DT_FLOAT")
    )
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=_plugin("scalars"))])


# dtype -> (TensorProto dtype, field, how the values go in)
def _as_half_bits(a):
    return a.astype(np.float16).view(np.uint16).astype(np.int32).ravel().tolist()


def _as_bfloat16_bits(a):
    return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.int32).ravel().tolist()


def _as_list(a):
    return a.ravel().tolist()


_TENSOR_FIELDS = {
    _C.float16: ("DT_HALF", "half_val", _as_half_bits),
    _C.bfloat16: ("DT_BFLOAT16", "half_val", _as_bfloat16_bits),
    _C.float32: ("DT_FLOAT", "float_val", _as_list),
    _C.float64: ("DT_DOUBLE", "double_val", _as_list),
    _C.int8: ("DT_INT8", "int_val", _as_list),
    _C.uint8: ("DT_UINT8", "uint32_val", _as_list),
    _C.int16: ("DT_INT16", "int_val", _as_list),
    _C.int32: ("DT_INT32", "int_val", _as_list),
    _C.int64: ("DT_INT64", "int64_val", _as_list),
    _C.bool: ("DT_BOOL", "bool_val", _as_list),
}


def tensor_proto(tag, tensor):
    """A whole tensor, under the tensor plugin."""
    if tensor.numel() * tensor.element_size() >= (1 << 31):
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if tensor.dtype not in _TENSOR_FIELDS:
        raise ValueError(f"{tag} has unsupported tensor dtype {tensor.dtype}")
    dtype, field, convert = _TENSOR_FIELDS[tensor.dtype]
    t = tensor.detach().cpu()
    values = t.float().numpy() if t.dtype == _C.bfloat16 else t.numpy()
    proto = TensorProto(
        dtype=dtype,
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in tensor.shape]),
        **{field: convert(values)},
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("tensor"), tensor=proto)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram from precomputed statistics and buckets (bucket_limits are right edges)."""
    hist = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=bucket_limits,
        bucket=bucket_counts,
    )
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None):
    """A histogram of `values` (see make_histogram)."""
    return Summary(
        value=[Summary.Value(tag=name, histo=make_histogram(make_np(values).astype(float), bins, max_bins))]
    )


def make_histogram(values, bins, max_bins=None):
    """HistogramProto of `values` over np.histogram's `bins` (edges or a rule), trimmed to the buckets that
    hold data plus one empty bucket on the left (TensorBoard stores right edges only); at most max_bins."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        pad = -len(counts) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    occupied = np.flatnonzero(counts)
    first, last = (int(occupied[0]), int(occupied[-1]) + 1) if occupied.size else (0, 0)
    counts = np.concatenate([[0], counts[:last]]) if first == 0 else counts[first - 1 : last]
    limits = limits[first : last + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


# ---- images


def _grid(nchw, ncols=8):
    """N images (N, C, H, W) tiled 8 to a row on a black canvas (one channel repeated to three)."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, axis=1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = nchw.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    padded = np.concatenate([nchw, np.zeros((nrows * ncols - n, 3, h, w), nchw.dtype)])
    return padded.reshape(nrows, ncols, 3, h, w).transpose(2, 0, 3, 1, 4).reshape(3, nrows * h, ncols * w)


def convert_to_HWC(arr, dataformats):
    """The image as (H, W, C) with 3 or 4 channels, from the layout `dataformats` names (NCHW, NHWC, CHW,
    HWC, HW, ...; a batch becomes a grid, gray becomes RGB)."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {dataformats}"
        )
    if arr.ndim != len(fmt):
        raise AssertionError(
            f"size of input tensor and input format are different. tensor shape: {arr.shape}, "
            f"input_format: {dataformats}"
        )
    if len(fmt) == 4:
        return _grid(arr.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = arr.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([arr.transpose([fmt.find(c) for c in "HW"])] * 3, axis=2)
    raise AssertionError(f"dataformats must have 2, 3 or 4 letters, got {dataformats}")


def _to_uint8(hwc):
    # uint8 images are taken as 0..255; anything else as 0..1
    scale = 1 if hwc.dtype == np.uint8 else 255
    return (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def _png(hwc):
    """PNG bytes of a uint8 (H, W, 1|3|4) image: no filtering, zlib-compressed rows."""
    h, w, c = hwc.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    raw = np.concatenate([np.zeros((h, 1), np.uint8), hwc.reshape(h, w * c)], axis=1).tobytes()

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def _pil_image(hwc):
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("resizing images or drawing boxes on them needs Pillow: pip install pillow") from e
    return Image.fromarray(hwc)


def make_image(hwc, rescale=1, rois=None, labels=None):
    """Summary.Image of a uint8 (H, W, C) image, optionally scaled by `rescale` and with boxes drawn."""
    height, width, channels = hwc.shape
    if rescale == 1 and rois is None:
        encoded = _png(hwc)
    else:
        from PIL import Image

        img = _pil_image(hwc)
        if rois is not None:
            img = _draw_boxes(img, rois, labels)
        img = img.resize((int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        encoded = buf.getvalue()
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encoded)


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    """An image (or a batch, as a grid) as PNG; float values in [0, 1], uint8 in [0, 255]."""
    hwc = _to_uint8(convert_to_HWC(make_np(tensor), dataformats))
    return Summary(value=[Summary.Value(tag=tag, image=make_image(hwc, rescale=rescale))])


def _draw_boxes(img, boxes, labels):
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes, dtype=np.float64).reshape(-1, 4)):
        draw.line([(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)], width=2, fill="Red")
        if labels is not None:
            left, top, right, bottom = font.getbbox(labels[i])
            margin = np.ceil(0.05 * (bottom - top))
            draw.rectangle([(x0, y1 - (bottom - top) - 2 * margin), (x0 + right - left, y1)], fill="Red")
            draw.text((x0 + margin, y1 - (bottom - top) - margin), labels[i], fill="black", font=font)
    return img


def image_boxes(tag, tensor_image, tensor_boxes, rescale=1, dataformats="CHW", labels=None):
    """An image with boxes (rows of xmin, ymin, xmax, ymax in pixels) drawn in red, optionally labelled."""
    hwc = _to_uint8(convert_to_HWC(make_np(tensor_image), dataformats))
    img = make_image(hwc, rescale=rescale, rois=make_np(tensor_boxes), labels=labels)
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def audio(tag, tensor, sample_rate=44100):
    """A mono clip (values in [-1, 1], clipped) as 16-bit WAV."""
    arr = make_np(tensor).squeeze()
    if arr.ndim != 1:
        raise ValueError("input tensor should be one dimensional.")
    pcm = (np.clip(arr, -1, 1) * np.iinfo(np.int16).max).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    clip = Summary.Audio(
        sample_rate=sample_rate,
        num_channels=1,
        length_frames=pcm.shape[-1],
        encoded_audio_string=buf.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=clip)])


def text(tag, text):
    """A string (markdown) under the text plugin, at tag '<tag>/text_summary'."""
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    meta = _plugin("text", TextPluginData(version=0).SerializeToString())
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def custom_scalars(layout):
    """The custom-scalars dashboard layout: {category: {chart: ['Multiline', [tags]] or ['Margin', [value,
    lower, upper]]}}."""
    categories = []
    for title, charts in layout.items():
        out = []
        for chart_title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                out.append(
                    layout_pb2.Chart(title=chart_title, margin=layout_pb2.MarginChartContent(series=[series]))
                )
            else:
                out.append(
                    layout_pb2.Chart(title=chart_title, multiline=layout_pb2.MultilineChartContent(tag=tags))
                )
        categories.append(layout_pb2.Category(title=title, chart=out))
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=TensorShapeProto(),
    )
    return Summary(
        value=[
            Summary.Value(tag="custom_scalars__config__", tensor=proto, metadata=_plugin("custom_scalars"))
        ]
    )


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A precision-recall curve from its counts per threshold."""
    num_thresholds = min(num_thresholds, 127)  # TensorBoard's plugin reads at most 127
    data = np.stack((tp, fp, tn, fn, precision, recall))
    meta = _plugin(
        "pr_curves", PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    )
    proto = TensorProto(
        dtype="DT_FLOAT",
        float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in data.shape]),
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def compute_curve(labels, predictions, num_thresholds=None, weights=None):
    """(tp, fp, tn, fn, precision, recall) per threshold bucket of `predictions` in [0, 1] against binary
    `labels` (the buckets TensorBoard's pr_curve plugin uses)."""
    eps = 1e-7
    weights = 1.0 if weights is None else weights
    bucket = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_hist, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=positive * weights)
    fp_hist, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=(1.0 - positive) * weights)
    tp = np.cumsum(tp_hist[::-1])[::-1]  # at or above each threshold
    fp = np.cumsum(fp_hist[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(eps, tp + fp)
    recall = tp / np.maximum(eps, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    """A precision-recall curve of `predictions` against binary `labels`."""
    num_thresholds = min(num_thresholds, 127)
    data = compute_curve(labels, predictions, num_thresholds=num_thresholds, weights=weights)
    return pr_curve_raw(tag, *data, num_thresholds=num_thresholds)


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The hparams plugin's three summaries (experiment, session start, session end) for one run."""
    from tensorboard.plugins.hparams import metadata
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(v, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in v)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}]."
            )

    def domain(k, field):
        if k not in domains:
            return None
        return struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]])

    infos = []
    ssi = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, _C.Tensor):
            ssi.hparams[k].number_value = float(make_np(v).reshape(-1)[0])
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
        elif isinstance(v, (int, float)):  # bool is an int: it goes in as a number, as in PyTorch
            ssi.hparams[k].number_value = v
            infos.append(
                HParamInfo(
                    name=k,
                    type=DataType.Value("DATA_TYPE_FLOAT64"),
                    domain_discrete=domain(k, "number_value"),
                )
            )
        elif isinstance(v, str):
            ssi.hparams[k].string_value = v
            infos.append(
                HParamInfo(
                    name=k, type=DataType.Value("DATA_TYPE_STRING"), domain_discrete=domain(k, "string_value")
                )
            )
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")  # noqa: TRY004

    def summary(tag, **content):
        data = HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content).SerializeToString()
        return Summary(value=[Summary.Value(tag=tag, metadata=_plugin(metadata.PLUGIN_NAME, data))])

    experiment = Experiment(
        hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    )
    return (
        summary(metadata.EXPERIMENT_TAG, experiment=experiment),
        summary(metadata.SESSION_START_INFO_TAG, session_start_info=ssi),
        summary(
            metadata.SESSION_END_INFO_TAG,
            session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")),
        ),
    )
